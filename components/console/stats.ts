"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "./api";
import { useConnectivity } from "./connectivity";
import { useConsole } from "./context";
import { queryKeys } from "./query-keys";

export type Stats = {
  registered_devices: number;
  online_devices: number;
  active_sessions: number;
  pending_devices: number;
  rejected_devices: number;
};

/** The namespace's counters, shared by the sidebar badges and the dashboard: one source. */
export function useStats() {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  return useQuery({
    queryKey: queryKeys.stats(tenant),
    queryFn: () => api<Stats>("/api/stats"),
    enabled: tenant !== "",
    refetchInterval: isLive ? false : 15_000,
  });
}
