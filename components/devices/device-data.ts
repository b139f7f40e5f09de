"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import type { deviceObject } from "@/lib/schemas/devices";
import type { PropertyCondition } from "@/lib/schemas/list-filter";
import { api } from "../console/api";
import { useConnectivity } from "../console/connectivity";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";

export type Device = z.infer<typeof deviceObject>;

/** What the fleet table shows; every field lives in the page's URL. */
export type DeviceListParams = {
  search: string;
  status: "accepted" | "pending" | "rejected";
  connectivity: "all" | "online" | "offline";
  tags: string[];
  sort: "last_seen" | "name" | "created_at" | "online";
  order: "asc" | "desc";
  page: number;
  perPage: number;
};

export const condition = (name: string, operator: PropertyCondition["params"]["operator"], value: unknown) =>
  ({ type: "property", params: { name, operator, value } }) as PropertyCondition;

/** The API's `filter` parameter: base64 of the JSON conditions (ANDed), text as UTF-8. */
export function filterParam(conditions: PropertyCondition[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(conditions));
  return btoa(String.fromCharCode(...bytes));
}

function filterOf(params: DeviceListParams): string | undefined {
  const conditions: PropertyCondition[] = [];
  if (params.search) conditions.push(condition("name", "contains", params.search));
  if (params.connectivity !== "all") conditions.push(condition("online", "eq", params.connectivity === "online"));
  if (params.tags.length > 0) conditions.push(condition("tags", "contains", params.tags));
  return conditions.length === 0 ? undefined : filterParam(conditions);
}

export function deviceListPath(params: DeviceListParams): string {
  const query = new URLSearchParams({
    status: params.status,
    sort_by: params.sort,
    order_by: params.order,
    page: String(params.page),
    per_page: String(params.perPage),
  });
  const filter = filterOf(params);
  if (filter) query.set("filter", filter);
  return `/api/devices?${query}`;
}

/** One page of the fleet, the total from `X-Total-Count`; the previous page stays while the next loads. */
export function useDeviceList(params: DeviceListParams) {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  return useQuery({
    queryKey: queryKeys.devices.list(tenant, params),
    queryFn: () => api<Device[]>(deviceListPath(params)),
    placeholderData: keepPreviousData,
    refetchInterval: isLive ? false : 15_000,
  });
}

export function useDevice(uid: string) {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  return useQuery({
    queryKey: queryKeys.devices.detail(tenant, uid),
    queryFn: () => api<Device>(`/api/devices/${encodeURIComponent(uid)}`),
    refetchInterval: isLive ? false : 15_000,
  });
}

/** The SSH address of a device: `namespace.device` before the server's host (SSHID). */
export const sshidOf = (device: Pick<Device, "namespace" | "name">, host: string) =>
  `${device.namespace}.${device.name}@${host}`;
