"use client";

import { CheckCircle2, CircleDashed, Radio, TerminalSquare } from "lucide-react";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, Callout, Card, CommandLine } from "@/components/ui/controls";
import { agentInstallCommand } from "@/lib/agent-install";
import { useConsole, usePermission } from "../console/context";
import { useStats } from "../console/stats";
import { connectCommands } from "./connect-commands";
import { useStatusChange } from "./device-actions";
import { type Device, useDeviceList } from "./device-data";
import { defaultParams } from "./list-params";

const troubleshootAfterMs = 120_000;

/**
 * Whether the namespace had no device when the page opened. It stays so while the page is open,
 * so the onboarding steps are not replaced by the table the moment the first device calls in.
 */
export function useIsNewNamespace(): boolean {
  const stats = useStats().data?.data;
  const [isNew, setNew] = useState<boolean>();
  useEffect(() => {
    if (stats && isNew === undefined) setNew(stats.registered_devices === 0 && stats.pending_devices === 0);
  }, [stats, isNew]);
  return isNew === true;
}

function Step({
  number,
  title,
  done,
  children,
}: {
  number: number;
  title: string;
  done: boolean;
  children?: React.ReactNode;
}) {
  return (
    <li className="grid grid-cols-[2rem_1fr] gap-3">
      <span
        aria-hidden
        className={`flex size-8 items-center justify-center rounded-full text-sm font-semibold ${
          done
            ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100"
            : "bg-indigo-100 text-indigo-800 dark:bg-indigo-900 dark:text-indigo-100"
        }`}
      >
        {done ? <CheckCircle2 className="size-5" /> : number}
      </span>
      <div className="grid min-w-0 gap-3 pt-1">
        <h2 className="font-semibold">
          {title}
          {done && <span className="sr-only"> (done)</span>}
        </h2>
        {children}
      </div>
    </li>
  );
}

function Troubleshooting({ publicUrl }: { publicUrl: string }) {
  return (
    <Callout kind="warning">
      <p className="font-medium">Nothing has arrived yet. On the device, check:</p>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        <li>
          It reaches this service: <code className="font-mono">curl -sf {publicUrl}/info</code>
        </li>
        <li>Outgoing HTTP(S) to this address is allowed by its firewall.</li>
        <li>Its clock is right (within a minute): the agent signs its calls with the time.</li>
        <li>
          The agent&apos;s log: <code className="font-mono">journalctl -u device-access-agent -n 50</code>
        </li>
      </ul>
    </Callout>
  );
}

/**
 * An empty namespace's first screen: the install command, then the device as soon as its agent
 * calls in (live), Accept, and the command that reaches it.
 */
export function Onboarding({ isFirst = true }: { isFirst?: boolean }) {
  const { tenant, publicUrl, info } = useConsole();
  const accept = usePermission("device.status");
  const pending = useDeviceList({ ...defaultParams, status: "pending", perPage: 10 });
  const change = useStatusChange();
  const [startedAt] = useState(() => Date.now());
  const [isLate, setLate] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setLate(true), troubleshootAfterMs - (Date.now() - startedAt));
    return () => clearTimeout(timer);
  }, [startedAt]);

  const waiting = pending.data?.data ?? [];
  const [connected, setConnected] = useState<Device>();
  const [downloader, setDownloader] = useState<"curl" | "wget">("curl");
  const command = agentInstallCommand({ server: publicUrl, tenantId: tenant, downloader });

  return (
    <div className="mx-auto grid max-w-3xl gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">
          {isFirst ? "Connect your first device" : "Add a device"}
        </h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          Any Linux device with Node.js 20 or later: a server, a board, a VM. It needs no open port, only a way out to
          this service.
        </p>
      </div>
      <Card className="p-5 sm:p-6">
        <ol className="grid gap-8">
          <Step number={1} title="Run this on the device, as root" done={waiting.length > 0 || connected !== undefined}>
            <fieldset className="flex gap-4 text-sm">
              <legend className="sr-only">Download with</legend>
              {(["curl", "wget"] as const).map((tool) => (
                <label key={tool} className="flex items-center gap-1.5">
                  <input
                    type="radio"
                    name="downloader"
                    checked={downloader === tool}
                    onChange={() => setDownloader(tool)}
                  />
                  <code className="font-mono">{tool}</code>
                </label>
              ))}
            </fieldset>
            <CommandLine command={command} label="Copy install command" />
            <details className="text-sm text-slate-700 dark:text-slate-300">
              <summary className="cursor-pointer font-medium">What this does</summary>
              <p className="mt-2">
                It checks for Node.js 20.9 or later, downloads the agent from this service (checking its checksum),
                installs it under <code className="font-mono">/opt/device-access-agent</code> and starts it as the
                systemd service <code className="font-mono">device-access-agent</code> (in the foreground where there is
                no systemd). The agent makes a key for the device, registers it with this namespace and keeps a tunnel
                open to the service, so people can reach it over SSH. Run it again to upgrade; add{" "}
                <code className="font-mono">--uninstall</code> to remove it.
              </p>
            </details>
          </Step>
          <Step number={2} title="Accept the device" done={connected !== undefined}>
            {connected ? (
              <p className="text-sm">
                <span className="font-medium">{connected.name}</span> is accepted.
              </p>
            ) : waiting.length === 0 ? (
              <>
                <p className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300" role="status">
                  <Radio aria-hidden className="size-4 animate-pulse text-indigo-600" />
                  Listening for your device…
                </p>
                {isLate && <Troubleshooting publicUrl={publicUrl} />}
              </>
            ) : (
              <ul className="grid gap-2" aria-label="Devices waiting for approval">
                {waiting.map((device) => (
                  <li
                    key={device.uid}
                    className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
                  >
                    <span className="flex items-center gap-2">
                      <CircleDashed aria-hidden className="size-4 text-amber-600" />
                      <span className="font-medium">{device.name}</span>
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        {device.info.pretty_name} · waiting for approval
                      </span>
                    </span>
                    <Button
                      size="sm"
                      deniedReason={accept.reason}
                      isPending={change.isPending && change.variables?.device.uid === device.uid}
                      onClick={() => change.mutate({ device, to: "accept" }, { onSuccess: () => setConnected(device) })}
                    >
                      Accept {device.name}
                    </Button>
                  </li>
                ))}
              </ul>
            )}
          </Step>
          <Step number={3} title="Connect" done={false}>
            {connected ? (
              <>
                <p className="text-sm text-slate-700 dark:text-slate-300">
                  From your terminal, as any user of the device that you have the password or an added key for:
                </p>
                <CommandLine command={connectCommands(info, connected).ssh} label="Copy ssh command" />
                <div>
                  <Link
                    href={`/devices/${connected.uid}?connect=1`}
                    className="inline-flex items-center gap-2 rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 dark:bg-indigo-500"
                  >
                    <TerminalSquare aria-hidden className="size-4" /> Open a terminal in the browser
                  </Link>
                </div>
              </>
            ) : (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                Once accepted, reach it with <code className="font-mono">ssh</code>,{" "}
                <code className="font-mono">scp</code> or a terminal here.
              </p>
            )}
          </Step>
        </ol>
      </Card>
    </div>
  );
}
