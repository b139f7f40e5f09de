"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { pageSizes } from "@/components/ui/pagination";
import type { WebhookDeliveryObject, WebhookObject } from "@/lib/schemas/webhooks";
import { type WebhookDeliveryStatus, type WebhookEventType, webhookDeliveryStatuses } from "@/models/enums";
import { type Answer, api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { useUrlState } from "../console/url-state";

export type Webhook = WebhookObject;
export type WebhookDelivery = WebhookDeliveryObject;

export const webhooksPath = "/api/webhooks";
export const webhookPath = (id: string) => `${webhooksPath}/${encodeURIComponent(id)}`;
export const webhookHref = (id: string) => `/settings/webhooks/${encodeURIComponent(id)}`;

/** The event types as the form offers them: grouped, each with what makes it happen. */
export const eventGroups: { title: string; types: { type: WebhookEventType; sentence: string }[] }[] = [
  {
    title: "Devices",
    types: [
      { type: "device.registered", sentence: "A new device asks to join and waits in Pending." },
      { type: "device.online", sentence: "A device connects." },
      { type: "device.offline", sentence: "A device disconnects or stops answering." },
      { type: "device.accepted", sentence: "A pending device is accepted." },
      { type: "device.rejected", sentence: "A device is rejected." },
      { type: "device.removed", sentence: "A device is removed from the namespace." },
    ],
  },
  {
    title: "Sessions",
    types: [
      { type: "session.started", sentence: "Someone opens an SSH session on a device." },
      { type: "session.ended", sentence: "An SSH session ends." },
    ],
  },
  {
    title: "Security",
    types: [
      {
        type: "login.refused",
        sentence: "An SSH login is refused: wrong credentials, a firewall rule, an offline device.",
      },
    ],
  },
  {
    title: "Audit trail",
    types: [{ type: "audit", sentence: "Every row of the Activity page: each change and each login decision." }],
  },
];

/** The namespace's webhooks, the first 100, oldest first. */
export function useWebhooks() {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.webhooks.list(tenant),
    queryFn: () => api<Webhook[]>(`${webhooksPath}?per_page=100`),
    // A last delivery still pending is read again until it has its outcome.
    refetchInterval: (query) =>
      query.state.data?.data.some((webhook) => webhook.last_delivery?.status === "pending") ? 2_000 : false,
  });
}

export function useWebhook(id: string) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.webhooks.detail(tenant, id),
    queryFn: () => api<Webhook>(webhookPath(id)),
  });
}

/** The deliveries table's filter and page, in the URL. */
export type DeliveryParams = { status: WebhookDeliveryStatus | ""; page: number; perPage: number };
const defaultPerPage = 25;

function parseDeliveryParams(query: URLSearchParams): DeliveryParams {
  const status = query.get("status") ?? "";
  const perPage = Number(query.get("per_page"));
  return {
    status: (webhookDeliveryStatuses as readonly string[]).includes(status) ? (status as WebhookDeliveryStatus) : "",
    page: Math.max(1, Math.floor(Number(query.get("page"))) || 1),
    perPage: (pageSizes as readonly number[]).includes(perPage) ? perPage : defaultPerPage,
  };
}

function serializeDeliveryParams(params: DeliveryParams): string {
  const query = new URLSearchParams();
  if (params.status) query.set("status", params.status);
  if (params.page !== 1) query.set("page", String(params.page));
  if (params.perPage !== defaultPerPage) query.set("per_page", String(params.perPage));
  const text = query.toString();
  return text ? `?${text}` : "";
}

export const useDeliveryParams = () => useUrlState<DeliveryParams>(parseDeliveryParams, serializeDeliveryParams);

/** A webhook's deliveries, newest first; read again every 2 s while one of them is pending. */
export function useDeliveries(id: string, params: DeliveryParams) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(tenant, id, params),
    queryFn: () => {
      const query = new URLSearchParams({ page: String(params.page), per_page: String(params.perPage) });
      if (params.status) query.set("status", params.status);
      return api<WebhookDelivery[]>(`${webhookPath(id)}/deliveries?${query}`);
    },
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.data.some((delivery) => delivery.status === "pending") ? 2_000 : false,
  });
}

export function useInvalidateWebhooks() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all(tenant) });
}

/**
 * Turns a webhook on or off at once, in the list and on its page; the switch flips back, with a
 * message, if the server refuses.
 */
export function useEnabledToggle() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  const invalidate = useInvalidateWebhooks();
  return useMutation({
    mutationFn: ({ webhook, enabled }: { webhook: Webhook; enabled: boolean }) =>
      api<Webhook>(webhookPath(webhook.id), { method: "PATCH", body: json({ enabled }) }),
    onMutate: async ({ webhook, enabled }) => {
      const listKey = queryKeys.webhooks.list(tenant);
      const detailKey = queryKeys.webhooks.detail(tenant, webhook.id);
      await queryClient.cancelQueries({ queryKey: queryKeys.webhooks.all(tenant) });
      const list = queryClient.getQueryData<Answer<Webhook[]>>(listKey);
      const detail = queryClient.getQueryData<Answer<Webhook>>(detailKey);
      if (list) {
        queryClient.setQueryData<Answer<Webhook[]>>(listKey, {
          ...list,
          data: list.data.map((item) => (item.id === webhook.id ? { ...item, enabled } : item)),
        });
      }
      if (detail)
        queryClient.setQueryData<Answer<Webhook>>(detailKey, { ...detail, data: { ...detail.data, enabled } });
      return { list, detail, listKey, detailKey };
    },
    onError: (failure, { webhook, enabled }, context) => {
      if (context?.list) queryClient.setQueryData(context.listKey, context.list);
      if (context?.detail) queryClient.setQueryData(context.detailKey, context.detail);
      toast.error(`${webhook.url} was not turned ${enabled ? "on" : "off"}: ${failureText(failure)}`);
    },
    onSuccess: (_answer, { webhook, enabled }) => toast.success(`${webhook.url} turned ${enabled ? "on" : "off"}`),
    onSettled: invalidate,
  });
}
