"use client";

import { useQuery } from "@tanstack/react-query";
import { Clock, Cpu, Hourglass, TerminalSquare } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Callout, Card } from "@/components/ui/controls";
import { RelativeTime } from "@/components/ui/relative-time";
import { condition, type Device, deviceListPath, filterParam } from "../devices/device-data";
import { defaultParams } from "../devices/list-params";
import { Onboarding, useIsNewNamespace } from "../devices/onboarding";
import { OnlineStatus } from "../devices/status";
import { api, failureText } from "./api";
import { useConnectivity } from "./connectivity";
import { useConsole } from "./context";
import { queryKeys } from "./query-keys";
import { useStats } from "./stats";

const day = 86_400_000;

function StatCard({
  label,
  value,
  icon: Icon,
  children,
}: {
  label: string;
  value: ReactNode;
  icon: typeof Cpu;
  children?: ReactNode;
}) {
  return (
    <Card className="grid content-start gap-3 p-4">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-medium text-slate-600 dark:text-slate-400">{label}</h2>
        <Icon aria-hidden className="size-5 text-slate-400" />
      </div>
      <p className="text-3xl font-semibold tracking-tight tabular-nums">{value}</p>
      {children}
    </Card>
  );
}

/**
 * Devices offline for more than a day, and the last to go offline: lists of the same device
 * queries the fleet table uses, refreshed by the same live events.
 */
function useOfflineDevices() {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  const params = { ...defaultParams, connectivity: "offline" as const, perPage: 5 };
  const recent = useQuery({
    queryKey: queryKeys.devices.list(tenant, params),
    queryFn: () => api<Device[]>(deviceListPath(params)),
    refetchInterval: isLive ? false : 15_000,
  });
  const staleSince = new Date(Math.floor((Date.now() - day) / 60_000) * 60_000).toISOString();
  const stale = useQuery({
    queryKey: queryKeys.devices.list(tenant, { offlineSince: staleSince }),
    queryFn: () => {
      const filter = filterParam([condition("online", "eq", false), condition("last_seen", "lt", staleSince)]);
      return api<Device[]>(`/api/devices?status=accepted&per_page=1&filter=${encodeURIComponent(filter)}`);
    },
  });
  return { recent, staleCount: stale.data?.total };
}

export function Dashboard() {
  const stats = useStats();
  const offline = useOfflineDevices();
  const isNew = useIsNewNamespace();
  if (isNew) return <Onboarding />;
  const figures = stats.data?.data;
  const onlineShare =
    figures && figures.registered_devices > 0 ? figures.online_devices / figures.registered_devices : 0;

  return (
    <div className="grid gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">Dashboard</h1>
      {stats.isError && <Callout kind="error">The figures could not be loaded. {failureText(stats.error)}</Callout>}
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatCard
          label="Online devices"
          icon={Cpu}
          value={
            figures ? (
              <>
                {figures.online_devices.toLocaleString()}
                <span className="text-lg font-normal text-slate-500 dark:text-slate-400">
                  {" "}
                  / {figures.registered_devices.toLocaleString()}
                </span>
              </>
            ) : (
              "–"
            )
          }
        >
          <div aria-hidden className="h-1.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800">
            <div className="h-full bg-emerald-500" style={{ width: `${onlineShare * 100}%` }} />
          </div>
        </StatCard>
        <StatCard label="Pending approval" icon={Hourglass} value={figures?.pending_devices.toLocaleString() ?? "–"}>
          {figures && figures.pending_devices > 0 ? (
            <Link
              href="/devices?status=pending"
              className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
            >
              Review {figures.pending_devices}
            </Link>
          ) : (
            <span className="text-sm text-slate-500 dark:text-slate-400">Nothing waiting</span>
          )}
        </StatCard>
        <StatCard
          label="Active sessions"
          icon={TerminalSquare}
          value={figures?.active_sessions.toLocaleString() ?? "–"}
        />
        <StatCard label="Offline for over 24 h" icon={Clock} value={offline.staleCount?.toLocaleString() ?? "–"}>
          <Link
            href="/devices?connectivity=offline&sort=last_seen&order=asc"
            className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          >
            See offline devices
          </Link>
        </StatCard>
      </div>
      <Card className="p-4">
        <h2 className="font-semibold">Recently offline</h2>
        {offline.recent.data?.data.length ? (
          <ul className="mt-3 divide-y divide-slate-100 dark:divide-slate-800">
            {offline.recent.data.data.map((device) => (
              <li key={device.uid} className="flex items-center justify-between gap-3 py-2 text-sm">
                <Link href={`/devices/${device.uid}`} className="font-medium hover:underline">
                  {device.name}
                </Link>
                <span className="flex items-center gap-3 text-slate-600 dark:text-slate-400">
                  <OnlineStatus device={device} />
                  <RelativeTime value={device.last_seen} prefix="last seen " />
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Every accepted device is online.</p>
        )}
      </Card>
    </div>
  );
}
