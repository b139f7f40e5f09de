"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Customer, Subscription } from "@/lib/schemas/billing";
import { ApiFailure, api, json } from "../console/api";
import { useConsole } from "../console/context";
import { type Namespace, useNamespace } from "../console/namespace-switcher";
import { queryKeys } from "../console/query-keys";
import type { Device } from "../devices/device-data";

export type { Customer, Subscription };

/** A 404 means "not yet" (no customer, no subscription): the page shows the free plan then. */
const orNone = async <T>(call: Promise<{ data: T }>) => {
  try {
    return (await call).data;
  } catch (failure) {
    if (failure instanceof ApiFailure && failure.status === 404) return null;
    throw failure;
  }
};

/** Whether this console may show the owner's billing: the cloud edition with billing on, and the owner. */
export function useBillingAccess() {
  const { edition, info, role } = useConsole();
  const isOn = edition === "cloud" && info.billing;
  return { isOn, isOwner: role === "owner", canRead: isOn && role === "owner" };
}

/** What the processor holds for the namespace, or null before it exists. */
function useOptional<T>(key: (tenant: string) => readonly unknown[], path: string) {
  const { tenant } = useConsole();
  return useQuery({ queryKey: key(tenant), queryFn: () => orNone(api<T>(path)) });
}

export const useCustomer = () => useOptional<Customer>(queryKeys.billing.customer, "/api/billing/customer");

export const useSubscription = () =>
  useOptional<Subscription>(queryKeys.billing.subscription, "/api/billing/subscription");

export function useMostUsedDevices(enabled: boolean) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.billing.mostUsed(tenant),
    queryFn: async () => (await api<Device[]>("/api/billing/devices-most-used")).data,
    enabled,
  });
}

/** A billing change: the billing views, the namespace (its plan) and the devices read again. */
export function useBillingMutation<V>(call: (value: V) => Promise<unknown>) {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      for (const queryKey of [
        queryKeys.billing.all(tenant),
        queryKeys.namespace(tenant),
        queryKeys.devices.all(tenant),
        queryKeys.stats(tenant),
      ]) {
        void queryClient.invalidateQueries({ queryKey });
      }
    },
  });
}

export const billingCalls = {
  createCustomer: () => api<Customer>("/api/billing/customer", { method: "POST" }),
  subscribe: () => api<Subscription>("/api/billing/subscription", { method: "POST" }),
  paymentMethod: (action: "detach" | "default", id: string) =>
    api<Customer>(`/api/billing/paymentmethod/${action}`, { method: "POST", body: json({ id }) }),
  /** The processor's hosted page where the card is entered; it sends the browser back here. */
  cardPage: async () =>
    (await api<{ url: string }>("/api/billing/setup-session", { method: "POST", body: json({}) })).data.url,
  chooseDevices: (choices: string[]) => api("/api/billing/device-choice", { method: "POST", body: json({ choices }) }),
};

/** The namespace's plan as the console shows it: limit, whether it is the free plan's, the state. */
export function planOf(namespace: Namespace, freePlanDevices: number) {
  const billing = namespace.billing;
  const isPaying = billing?.active === true;
  const freeLimit = namespace.max_devices >= 0 ? Math.min(namespace.max_devices, freePlanDevices) : freePlanDevices;
  return {
    isPaying,
    limit: isPaying ? namespace.max_devices : freeLimit,
    status: billing?.status ?? "none",
    isChoicePending: billing?.device_choice_pending === true,
  };
}

export function usePlan() {
  const { freePlanDevices } = useConsole();
  const namespace = useNamespace().data?.data;
  return namespace ? { namespace, ...planOf(namespace, freePlanDevices) } : undefined;
}
