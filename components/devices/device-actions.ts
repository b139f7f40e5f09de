"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { type Answer, ApiFailure, api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";
import type { Device } from "./device-data";

const path = (uid: string) => `/api/devices/${encodeURIComponent(uid)}`;

/** One call of a device operation, by kind; bulk actions run these one after another. */
export const deviceCalls = {
  accept: (uid: string) => api(`${path(uid)}/accept`, { method: "PATCH" }),
  reject: (uid: string) => api(`${path(uid)}/reject`, { method: "PATCH" }),
  remove: (uid: string) => api(path(uid), { method: "DELETE" }),
  addTag: (uid: string, tag: string) => api(`${path(uid)}/tags`, { method: "POST", body: json({ tag }) }),
  removeTag: (uid: string, tag: string) => api(`${path(uid)}/tags/${encodeURIComponent(tag)}`, { method: "DELETE" }),
  update: (uid: string, fields: { name?: string; public_url?: boolean }) =>
    api(path(uid), { method: "PUT", body: json(fields) }),
};

/** Every cached view of the namespace's devices, and the counters, after a change. */
export function useInvalidateDevices() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.devices.all(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.stats(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.tags(tenant) });
  };
}

/** Accept or reject: pessimistic (the server may refuse, e.g. at the device limit). */
export function useStatusChange() {
  const invalidate = useInvalidateDevices();
  return useMutation({
    mutationFn: ({ device, to }: { device: Pick<Device, "uid" | "name">; to: "accept" | "reject" }) =>
      deviceCalls[to](device.uid),
    onSuccess: (_answer, { device, to }) =>
      toast.success(`${device.name} ${to === "accept" ? "accepted" : "rejected"}`),
    onError: (failure, { device, to }) =>
      toast.error(`${device.name} was not ${to}ed: ${failureText(failure)}`, {
        // Past the plan's limit (402): the way to more devices, or to the device choice.
        ...(failure instanceof ApiFailure && failure.status === 402
          ? { action: { label: "See plan", onClick: () => window.location.assign("/settings/billing?choose=1") } }
          : {}),
      }),
    onSettled: invalidate,
  });
}

/**
 * An edit of one device shown at once and rolled back if the server refuses: `change` applies the
 * edit to the cached device, `call` makes it on the server.
 */
export function useOptimisticDeviceEdit<V>(
  uid: string,
  change: (device: Device, value: V) => Device,
  call: (value: V) => Promise<unknown>,
  describe: (value: V) => string,
) {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  const invalidate = useInvalidateDevices();
  const key = queryKeys.devices.detail(tenant, uid);
  return useMutation({
    mutationFn: call,
    onMutate: async (value) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Answer<Device>>(key);
      if (before) queryClient.setQueryData<Answer<Device>>(key, { ...before, data: change(before.data, value) });
      return { before };
    },
    onError: (failure, value, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      toast.error(`${describe(value)} failed: ${failureText(failure)}`);
    },
    onSuccess: (_answer, value) => toast.success(describe(value)),
    onSettled: invalidate,
  });
}
