"use client";

import { useMutation } from "@tanstack/react-query";
import { Pencil, Plus, TerminalSquare, X } from "lucide-react";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import { toast } from "sonner";
import { BackLink, Badge, Button, Callout, Card, CommandLine, NotFoundNotice } from "@/components/ui/controls";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Facts } from "@/components/ui/facts";
import { RelativeTime } from "@/components/ui/relative-time";
import { deviceName, tagName } from "@/lib/schemas/devices";
import { ApiFailure, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { useTerminals } from "../terminal/terminal-dock";
import { connectCommands } from "./connect-commands";
import { deviceCalls, useInvalidateDevices, useOptimisticDeviceEdit, useStatusChange } from "./device-actions";
import { type Device, useDevice } from "./device-data";
import { DeviceDiagnostics } from "./device-diagnostics";
import { OnlineStatus } from "./status";

const issueText = (result: { success: false; error: { issues: { message: string }[] } }) =>
  `${result.error.issues[0]?.message ?? "invalid"}.`;

function DeviceName({ device }: { device: Device }) {
  const permission = usePermission("device.update");
  const [draft, setDraft] = useState<string>();
  const [error, setError] = useState<string>();
  const rename = useOptimisticDeviceEdit(
    device.uid,
    (current, name: string) => ({ ...current, name }),
    (name: string) => deviceCalls.update(device.uid, { name }),
    (name) => `Renamed to ${name}`,
  );
  if (draft === undefined) {
    return (
      <div className="flex items-center gap-2">
        <h1 className="text-2xl font-semibold tracking-tight break-all">{device.name}</h1>
        <Button
          variant="ghost"
          size="sm"
          aria-label="Rename device"
          deniedReason={permission.reason}
          onClick={() => {
            setDraft(device.name);
            setError(undefined);
          }}
        >
          <Pencil aria-hidden className="size-4" />
        </Button>
      </div>
    );
  }
  function save(event: FormEvent) {
    event.preventDefault();
    const parsed = deviceName.safeParse(draft);
    if (!parsed.success) {
      setError(issueText(parsed));
      return;
    }
    setDraft(undefined);
    if (parsed.data !== device.name) rename.mutate(parsed.data);
  }
  return (
    <form onSubmit={save} className="grid gap-1">
      <div className="flex items-center gap-2">
        <label htmlFor="device-name" className="sr-only">
          Device name
        </label>
        <input
          id="device-name"
          value={draft}
          // biome-ignore lint/a11y/noAutofocus: the person just asked to edit this field
          autoFocus
          aria-invalid={error ? true : undefined}
          aria-describedby="device-name-rule"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => event.key === "Escape" && setDraft(undefined)}
          className="rounded-md bg-white px-2 py-1 text-xl font-semibold outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
        />
        <Button type="submit" size="sm">
          Save
        </Button>
        <Button size="sm" variant="secondary" onClick={() => setDraft(undefined)}>
          Cancel
        </Button>
      </div>
      <p
        id="device-name-rule"
        className={`text-xs ${error ? "text-red-700 dark:text-red-400" : "text-slate-600 dark:text-slate-400"}`}
      >
        {error ?? "1 to 63 lower-case letters, digits or inner hyphens (it is part of the SSH address)."}
      </p>
    </form>
  );
}

function TagEditor({ device }: { device: Device }) {
  const permission = usePermission("device.tag");
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string>();
  const add = useOptimisticDeviceEdit(
    device.uid,
    (current, tag: string) => ({ ...current, tags: [...current.tags, tag] }),
    (tag: string) => deviceCalls.addTag(device.uid, tag),
    (tag) => `Tag ${tag} added`,
  );
  const remove = useOptimisticDeviceEdit(
    device.uid,
    (current, tag: string) => ({ ...current, tags: current.tags.filter((other) => other !== tag) }),
    (tag: string) => deviceCalls.removeTag(device.uid, tag),
    (tag) => `Tag ${tag} removed`,
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = tagName.safeParse(draft);
    if (!parsed.success) {
      setError(issueText(parsed));
      return;
    }
    setError(undefined);
    setDraft("");
    if (!device.tags.includes(parsed.data)) add.mutate(parsed.data);
  }
  return (
    <div className="grid gap-2">
      <ul className="flex flex-wrap gap-1.5" aria-label="Tags">
        {device.tags.length === 0 && <li className="text-sm text-slate-500 dark:text-slate-400">No tags</li>}
        {device.tags.map((tag) => (
          <li key={tag}>
            <Badge color="indigo">
              {tag}
              {permission.allowed && (
                <button type="button" aria-label={`Remove tag ${tag}`} onClick={() => remove.mutate(tag)}>
                  <X aria-hidden className="size-3.5" />
                </button>
              )}
            </Badge>
          </li>
        ))}
      </ul>
      {permission.allowed ? (
        <form onSubmit={submit} className="grid gap-1">
          <div className="flex gap-2">
            <label htmlFor="new-tag" className="sr-only">
              New tag
            </label>
            <input
              id="new-tag"
              value={draft}
              placeholder="Add a tag"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? "new-tag-error" : undefined}
              onChange={(event) => setDraft(event.target.value)}
              className="w-full max-w-56 rounded-md bg-white px-2.5 py-1.5 text-sm outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
            />
            <Button type="submit" size="sm" variant="secondary" aria-label="Add tag">
              <Plus aria-hidden className="size-4" />
            </Button>
          </div>
          {error && (
            <p id="new-tag-error" className="text-xs text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
        </form>
      ) : (
        <p className="text-xs text-slate-500 dark:text-slate-400">{permission.reason} to change tags.</p>
      )}
    </div>
  );
}

function PublicUrlSwitch({ device }: { device: Device }) {
  const permission = usePermission("device.update");
  const toggle = useOptimisticDeviceEdit(
    device.uid,
    (current, publicUrl: boolean) => ({ ...current, public_url: publicUrl }),
    (publicUrl: boolean) => deviceCalls.update(device.uid, { public_url: publicUrl }),
    (publicUrl) => `Public URL turned ${publicUrl ? "on" : "off"}`,
  );
  return (
    <label className="flex items-center justify-between gap-3 text-sm">
      <span>
        <span className="font-medium">Public URL</span>
        <span className="block text-xs text-slate-600 dark:text-slate-400">
          Lets the device be reached over HTTP by its address.
        </span>
      </span>
      <input
        type="checkbox"
        role="switch"
        aria-checked={device.public_url}
        checked={device.public_url}
        disabled={!permission.allowed}
        title={permission.reason}
        onChange={(event) => toggle.mutate(event.target.checked)}
        className="size-5 accent-indigo-600"
      />
    </label>
  );
}

const lastUserKey = (uid: string) => `last-login:${uid}`;

function ConnectCard({ device }: { device: Device }) {
  const { info } = useConsole();
  const [user, setUser] = useState("root");
  useEffect(() => setUser(localStorage.getItem(lastUserKey(device.uid)) ?? "root"), [device.uid]);
  const commands = connectCommands(info, device, user || "root");
  const lines: [string, string][] = [
    ["ssh", commands.ssh],
    ["Copy a file (scp)", commands.scp],
    ["File transfer (sftp)", commands.sftp],
    ["Forward a port (local 8080 to the device's 80)", commands.forward],
    [`~/.ssh/config, then: ssh ${commands.alias}`, commands.config],
  ];
  return (
    <Card className="grid gap-4 p-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 className="font-semibold">Connect from your terminal</h2>
        <label className="flex items-center gap-2 text-sm">
          User on the device
          <input
            value={user}
            onChange={(event) => {
              setUser(event.target.value);
              localStorage.setItem(lastUserKey(device.uid), event.target.value);
            }}
            className="w-32 rounded-md bg-white px-2 py-1 font-mono text-sm outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
          />
        </label>
      </div>
      {lines.map(([label, command]) => (
        <div key={label} className="grid gap-1">
          <p className="text-xs font-medium text-slate-600 dark:text-slate-400">{label}</p>
          <CommandLine command={command} label={`Copy: ${label}`} />
        </div>
      ))}
    </Card>
  );
}

function RemoveDevice({ device }: { device: Device }) {
  const permission = usePermission("device.delete");
  const router = useRouter();
  const invalidate = useInvalidateDevices();
  const [isAsking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => deviceCalls.remove(device.uid),
    onSuccess: () => {
      toast.success(`${device.name} removed`);
      invalidate();
      router.push("/devices");
    },
  });
  return (
    <>
      <Button variant="danger" deniedReason={permission.reason} onClick={() => setAsking(true)}>
        Remove
      </Button>
      <ConfirmDialog
        isOpen={isAsking}
        onClose={() => setAsking(false)}
        title={`Remove device ${device.name}?`}
        description="Its sessions stay in the history. If its agent calls in again, it comes back as a new pending device. This cannot be undone."
        confirmLabel={`Remove ${device.name}`}
        isPending={remove.isPending}
        failure={remove.isError ? failureText(remove.error) : undefined}
        onConfirm={() => remove.mutate()}
      />
    </>
  );
}

/** One device: name, status, tags, identity, the ways to connect, and the terminal. */
export function DeviceDetail({ uid }: { uid: string }) {
  const query = useDevice(uid);
  const connect = usePermission("device.connect");
  const status = usePermission("device.status");
  const change = useStatusChange();
  const search = useSearchParams();
  const router = useRouter();
  const terminals = useTerminals();
  const device = query.data?.data;
  const wantsTerminal = search.get("connect") === "1" && device?.status === "accepted";
  // `?connect=1` (the list's Connect link) opens a terminal once, then leaves the URL.
  useEffect(() => {
    if (!wantsTerminal || !device) return;
    terminals.open(device);
    router.replace(`/devices/${device.uid}`);
  }, [wantsTerminal, device, terminals, router]);

  if (query.isPending) return <p role="status">Loading the device…</p>;
  if (query.isError) {
    if (query.error instanceof ApiFailure && query.error.status === 404) {
      return (
        <NotFoundNotice title="Device not found" back={{ href: "/devices", label: "Back to devices" }}>
          No device of this namespace has this id. It may have been removed, or belong to another namespace.
        </NotFoundNotice>
      );
    }
    return <Callout kind="error">The device could not be loaded. {failureText(query.error)}</Callout>;
  }
  if (!device) return null;
  const isAccepted = device.status === "accepted";

  return (
    <div className="grid gap-6">
      <BackLink href="/devices" label="Devices" />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="grid gap-1">
          <DeviceName device={device} />
          <p className="flex flex-wrap items-center gap-3 text-sm text-slate-600 dark:text-slate-400">
            <OnlineStatus device={device} />
            {isAccepted && !device.online && <RelativeTime value={device.last_seen} prefix="last seen " />}
            {isAccepted && device.online && <span>agent {device.info.version || "unknown version"}</span>}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {isAccepted ? (
            <Button
              deniedReason={connect.reason ?? (device.online ? undefined : "The device is offline")}
              onClick={() => terminals.open(device)}
            >
              <TerminalSquare aria-hidden className="size-4" /> Connect
            </Button>
          ) : (
            <Button
              deniedReason={status.reason}
              isPending={change.isPending}
              onClick={() => change.mutate({ device, to: "accept" })}
            >
              Accept
            </Button>
          )}
          <Link
            href={`/sessions?device=${device.uid}`}
            className="inline-flex items-center rounded-md bg-white px-3.5 py-2 text-sm font-semibold text-slate-900 shadow-xs ring-1 ring-slate-300 ring-inset hover:bg-slate-50 dark:bg-slate-800 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-700"
          >
            Sessions
          </Link>
          <RemoveDevice device={device} />
        </div>
      </div>
      <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
        <div className="grid content-start gap-6">
          {isAccepted && <ConnectCard device={device} />}
          <Card className="grid gap-4 p-4">
            <h2 className="font-semibold">System</h2>
            <Facts
              rows={[
                ["Operating system", device.info.pretty_name],
                ["Platform", device.info.platform],
                ["Architecture", device.info.arch],
                ["Agent version", device.info.version],
              ]}
            />
          </Card>
          <DeviceDiagnostics device={device} />
        </div>
        <div className="grid content-start gap-6">
          <Card className="grid gap-3 p-4">
            <h2 className="font-semibold">Tags</h2>
            <TagEditor device={device} />
          </Card>
          <Card className="grid gap-3 p-4">
            <PublicUrlSwitch device={device} />
          </Card>
          <Card className="grid gap-4 p-4">
            <h2 className="font-semibold">Identity</h2>
            <Facts
              rows={[
                [
                  "UID",
                  <code key="uid" className="font-mono text-xs">
                    {device.uid}
                  </code>,
                ],
                ["MAC address", device.identity.mac],
                ["Remote address", device.remote_addr],
                ["Registered", <RelativeTime key="created" value={device.created_at} />],
                ["Status changed", <RelativeTime key="status" value={device.status_update_at} />],
              ]}
            />
          </Card>
        </div>
      </div>
    </div>
  );
}
