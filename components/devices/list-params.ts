"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { pageSizes } from "@/components/ui/pagination";
import type { DeviceListParams } from "./device-data";

export const defaultParams: DeviceListParams = {
  search: "",
  status: "accepted",
  connectivity: "all",
  tags: [],
  sort: "last_seen",
  order: "desc",
  page: 1,
  perPage: 25,
};

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

function parse(query: URLSearchParams): DeviceListParams {
  const perPage = Number(query.get("per_page"));
  return {
    search: query.get("q") ?? "",
    status: oneOf(query.get("status"), ["accepted", "pending", "rejected"], "accepted"),
    connectivity: oneOf(query.get("connectivity"), ["all", "online", "offline"], "all"),
    tags: query.getAll("tag").filter(Boolean),
    sort: oneOf(query.get("sort"), ["last_seen", "name", "created_at", "online"], "last_seen"),
    order: oneOf(query.get("order"), ["asc", "desc"], "desc"),
    page: Math.max(1, Math.floor(Number(query.get("page"))) || 1),
    perPage: (pageSizes as readonly number[]).includes(perPage) ? perPage : defaultParams.perPage,
  };
}

function serialize(params: DeviceListParams): string {
  const query = new URLSearchParams();
  if (params.search) query.set("q", params.search);
  if (params.status !== defaultParams.status) query.set("status", params.status);
  if (params.connectivity !== "all") query.set("connectivity", params.connectivity);
  for (const tag of params.tags) query.append("tag", tag);
  if (params.sort !== defaultParams.sort) query.set("sort", params.sort);
  if (params.order !== defaultParams.order) query.set("order", params.order);
  if (params.page !== 1) query.set("page", String(params.page));
  if (params.perPage !== defaultParams.perPage) query.set("per_page", String(params.perPage));
  const text = query.toString();
  return text ? `?${text}` : "";
}

/**
 * The fleet table's state, kept in the URL: reload keeps the view, Back and Forward move
 * between views. A change of anything but the page starts again at page 1.
 */
export function useListParams(): [
  DeviceListParams,
  (change: Partial<DeviceListParams>, history?: "push" | "replace") => void,
] {
  const query = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = parse(new URLSearchParams(query.toString()));
  // Typing in the search box replaces the entry; every other change is a step Back can undo.
  const update = (change: Partial<DeviceListParams>, history: "push" | "replace" = "push") => {
    const next = { ...params, ...change, page: change.page ?? 1 };
    router[history](`${pathname}${serialize(next)}`, { scroll: false });
  };
  return [params, update];
}

export const isFiltered = (params: DeviceListParams) =>
  params.search !== "" || params.connectivity !== "all" || params.tags.length > 0;
