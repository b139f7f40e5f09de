"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import type { z } from "zod";
import type { connectorInfoObject, connectorObject, containerObject } from "@/lib/schemas/connectors";
import { api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";

export type Connector = z.infer<typeof connectorObject>;
export type EngineInfo = z.infer<typeof connectorInfoObject>;
export type Container = z.infer<typeof containerObject>;

export const connectorsPath = "/api/connector";
export const connectorPath = (uid: string) => `${connectorsPath}/${encodeURIComponent(uid)}`;

/** The namespace's connectors, the first 100 (cloud edition only). */
export function useConnectors() {
  const { tenant, edition } = useConsole();
  return useQuery({
    queryKey: queryKeys.connectors.all(tenant),
    queryFn: () => api<Connector[]>(`${connectorsPath}?per_page=100`),
    enabled: edition === "cloud",
    // The status is the worker's: read it again while the page is open.
    refetchInterval: 10_000,
  });
}

export function useConnector(uid: string) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.connectors.detail(tenant, uid),
    queryFn: () => api<Connector>(connectorPath(uid)),
    refetchInterval: 10_000,
  });
}

/** The engine's own info, asked when the page opens (no retry: a 502 says why). */
export function useEngineInfo(uid: string) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.connectors.info(tenant, uid),
    queryFn: () => api<EngineInfo>(`${connectorPath(uid)}/info`),
    retry: false,
  });
}

/** The namespace's containers, the first 100, as the device list answers them. */
export function useContainers() {
  const { tenant, edition } = useConsole();
  return useQuery({
    queryKey: queryKeys.containers(tenant),
    queryFn: () => api<Container[]>("/api/containers?per_page=100&sort_by=name&order_by=asc"),
    enabled: edition === "cloud",
    refetchInterval: 10_000,
  });
}

export function useInvalidateConnectors() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.connectors.all(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.containers(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.devices.all(tenant) });
  };
}

/** Switches a connector on or off; a refusal is said in a toast. */
export function useEnableToggle() {
  const invalidate = useInvalidateConnectors();
  return useMutation({
    mutationFn: ({ connector, enable }: { connector: Connector; enable: boolean }) =>
      api<Connector>(connectorPath(connector.uid), { method: "PATCH", body: json({ enable }) }),
    onSuccess: (_answer, { connector, enable }) =>
      toast.success(`${connector.address}:${connector.port} ${enable ? "enabled" : "disabled"}`),
    onError: (error) => toast.error(failureText(error)),
    onSettled: invalidate,
  });
}
