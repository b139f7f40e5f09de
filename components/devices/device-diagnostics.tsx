"use client";

import { useQuery } from "@tanstack/react-query";
import { CircleCheck, CircleX } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import type { z } from "zod";
import { Button, Callout, Card, CommandLine } from "@/components/ui/controls";
import { RelativeTime } from "@/components/ui/relative-time";
import type { deviceDiagnostics } from "@/lib/schemas/diagnostics";
import { api, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { useStatusChange } from "./device-actions";
import type { Device } from "./device-data";

type Diagnostics = z.output<typeof deviceDiagnostics>;

/** The agent's log on a device where it runs as a service (docs/agent-install.md). */
const agentLogCommand = "journalctl -u device-access-agent -f";
/** Turns on the system's time synchronisation (systemd-timesyncd or chrony behind timedatectl). */
const clockSyncCommand = "sudo timedatectl set-ntp true";
/** Past this, a device's clock is worth fixing: its proofs are refused at 60 s ahead, logs and recordings disagree. */
const clockToleranceMs = 30_000;
const linkStyle = "font-medium text-indigo-700 underline hover:no-underline dark:text-indigo-300";

function useDiagnostics(device: Device) {
  const { tenant } = useConsole();
  return useQuery({
    // Read again whenever the device goes online or offline (the live stream updates `device`).
    queryKey: [...queryKeys.devices.diagnostics(tenant, device.uid), device.online, device.status],
    queryFn: () => api<Diagnostics>(`/api/devices/${encodeURIComponent(device.uid)}/diagnostics`),
  });
}

function Check({ isOk, title, children }: { isOk: boolean; title: ReactNode; children?: ReactNode }) {
  const Icon = isOk ? CircleCheck : CircleX;
  return (
    <li className="flex gap-3">
      <Icon
        aria-label={isOk ? "OK" : "Problem"}
        className={`mt-0.5 size-5 shrink-0 ${isOk ? "text-emerald-600 dark:text-emerald-400" : "text-red-600 dark:text-red-400"}`}
      />
      <div className="grid min-w-0 gap-2 text-sm">
        <p className="font-medium">{title}</p>
        {children}
      </div>
    </li>
  );
}

function AcceptFix({ device }: { device: Device }) {
  const permission = usePermission("device.status");
  const change = useStatusChange();
  return (
    <div>
      <Button
        size="sm"
        deniedReason={permission.reason}
        isPending={change.isPending}
        onClick={() => change.mutate({ device, to: "accept" })}
      >
        Accept
      </Button>
    </div>
  );
}

/** A refusal reason, with a link to the firewall rules when a rule refused it. */
function Reason({ reason }: { reason: string }) {
  const rule = /^firewall rule #(\d+)/.exec(reason);
  return (
    <span>
      {reason}
      {rule && (
        <>
          {" · "}
          <Link href="/firewall" className={linkStyle}>
            See rule #{rule[1]}
          </Link>
        </>
      )}
    </span>
  );
}

/** The agent's clock against the server's, when its tunnel said it. */
function ClockCheck({ skewMs }: { skewMs: number }) {
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  const direction = skewMs > 0 ? "ahead of" : "behind";
  if (Math.abs(skewMs) <= clockToleranceMs) {
    return (
      <Check
        isOk
        title={seconds === 0 ? "Clock in step with the server" : `Clock ${seconds} s ${direction} the server`}
      />
    );
  }
  return (
    <Check isOk={false} title={`Clock ${seconds} s ${direction} the server`}>
      <p className="text-slate-600 dark:text-slate-400">
        Logs and recordings will disagree, and the agent's proofs may be refused. Turn on time synchronisation on the
        device:
      </p>
      <CommandLine command={clockSyncCommand} label="Copy the time synchronisation command" />
    </Check>
  );
}

/** The last time the server refused or dropped the tunnel, when it still matters: offline, or since the last connect. */
function TunnelErrorCheck({ found }: { found: Diagnostics }) {
  const error = found.last_tunnel_error;
  const lastOnline = found.transitions.find((change) => change.online);
  if (!error || (found.online && lastOnline && Date.parse(lastOnline.time) > Date.parse(error.time))) return null;
  return (
    <Check isOk={false} title="The server refused or dropped the tunnel">
      <p className="break-words text-slate-600 dark:text-slate-400">
        <RelativeTime value={error.time} />: {error.message}
      </p>
    </Check>
  );
}

function Checklist({ device, found }: { device: Device; found: Diagnostics }) {
  const [lastChange] = found.transitions;
  const isAccepted = found.status === "accepted";
  return (
    <ul className="grid gap-4" aria-label="Checks">
      {isAccepted ? (
        <Check isOk title="Accepted" />
      ) : found.plan.removed ? (
        <Check isOk={false} title="Removed by the namespace's plan">
          <p>
            <Link href="/settings/billing?choose=1" className={linkStyle}>
              Choose the devices to keep, or subscribe
            </Link>
          </p>
        </Check>
      ) : (
        <Check isOk={false} title={`Not accepted (${found.status})`}>
          <AcceptFix device={device} />
        </Check>
      )}
      {found.plan.refusal && (
        <Check isOk={false} title="Blocked by the namespace's plan">
          <p>
            {found.plan.refusal}.{" "}
            <Link href="/settings/billing?choose=1" className={linkStyle}>
              Choose devices
            </Link>
          </p>
        </Check>
      )}
      {found.online ? (
        <Check isOk title="Online">
          {lastChange?.online && (
            <p className="text-slate-600 dark:text-slate-400">
              Since <RelativeTime value={lastChange.time} /> ({lastChange.cause})
            </p>
          )}
        </Check>
      ) : (
        <Check
          isOk={false}
          title={
            <>
              Offline since{" "}
              <RelativeTime value={lastChange && !lastChange.online ? lastChange.time : found.last_seen} />
            </>
          }
        >
          {lastChange && !lastChange.online && (
            <p className="text-slate-600 dark:text-slate-400">Cause: {lastChange.cause}</p>
          )}
          <p className="text-slate-600 dark:text-slate-400">On the device, the agent's log tells why:</p>
          <CommandLine command={agentLogCommand} label="Copy the agent's log command" />
        </Check>
      )}
      <TunnelErrorCheck found={found} />
      {found.clock_skew_ms !== null && <ClockCheck skewMs={found.clock_skew_ms} />}
      {found.refused_logins.length === 0 ? (
        <Check isOk title="No refused logins" />
      ) : (
        <Check
          isOk={false}
          title={`${found.refused_logins.length} recent refused login${found.refused_logins.length === 1 ? "" : "s"}`}
        >
          <ul className="grid gap-1.5" aria-label="Refused logins">
            {found.refused_logins.map((login) => (
              <li key={`${login.time}-${login.login}`} className="break-words">
                <span className="font-mono">{login.login}</span> from {login.source || "unknown"},{" "}
                <RelativeTime value={login.time} />: <Reason reason={login.reason} />
              </li>
            ))}
          </ul>
        </Check>
      )}
      {found.last_login && (
        <Check isOk title="Last login">
          <p className="text-slate-600 dark:text-slate-400">
            <span className="font-mono">{found.last_login.login}</span> from {found.last_login.source},{" "}
            <RelativeTime value={found.last_login.time} />
          </p>
        </Check>
      )}
    </ul>
  );
}

function Timeline({ transitions }: { transitions: Diagnostics["transitions"] }) {
  if (transitions.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">No online or offline change recorded yet.</p>;
  }
  return (
    <ol className="grid gap-1.5 text-sm" aria-label="Online and offline changes">
      {transitions.map((change) => (
        <li key={`${change.time}-${change.online}`} className="flex flex-wrap gap-x-2">
          <span className={change.online ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
            {change.online ? "Online" : "Offline"}
          </span>
          <RelativeTime value={change.time} />
          <span className="text-slate-600 dark:text-slate-400">{change.cause}</span>
        </li>
      ))}
    </ol>
  );
}

/** "Why can't I reach this device?": a checklist with a fix for each problem, and its recent changes. */
export function DeviceDiagnostics({ device }: { device: Device }) {
  const query = useDiagnostics(device);
  return (
    <Card className="grid gap-4 p-4">
      <h2 className="font-semibold">Diagnostics</h2>
      {query.isPending && <p role="status">Checking the device…</p>}
      {query.isError && <Callout kind="error">The diagnostics could not be loaded. {failureText(query.error)}</Callout>}
      {query.data && (
        <>
          <Checklist device={device} found={query.data.data} />
          <div className="grid gap-2">
            <h3 className="text-sm font-semibold">Recent changes</h3>
            <Timeline transitions={query.data.data.transitions} />
          </div>
        </>
      )}
    </Card>
  );
}
