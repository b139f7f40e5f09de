"use client";

import { Check, Play, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Button, StateDot } from "@/components/ui/controls";
import { ConfirmDialog } from "@/components/ui/dialog";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { ResponsiveTable } from "@/components/ui/responsive-table";
import { failureText } from "../console/api";
import { usePermission } from "../console/context";
import { duration, type Session, sessionSeconds, useCloseSession } from "./session-data";

/** Live or ended, as a dot and a word. */
export function SessionState({ session }: { session: Pick<Session, "active"> }) {
  return <StateDot isOn={session.active} label={session.active ? "Active" : "Ended"} />;
}

/** Whether the login succeeded; a refused one is red and says why when the gateway said. */
export function LoginOutcome({ session }: { session: Pick<Session, "authenticated" | "reason"> }) {
  if (session.authenticated)
    return (
      <span className="inline-flex items-center gap-1 text-sm text-emerald-800 dark:text-emerald-300">
        <Check aria-hidden className="size-4" /> Logged in
      </span>
    );
  return (
    <span
      className="inline-flex items-center gap-1 text-sm text-red-700 dark:text-red-400"
      title={session.reason || "The login did not succeed"}
    >
      <X aria-hidden className="size-4" /> Failed
      {session.reason ? <span className="sr-only">: {session.reason}</span> : null}
    </span>
  );
}

export function SessionDuration({ session }: { session: Pick<Session, "started_at" | "last_seen" | "active"> }) {
  const now = useNow();
  return <span className="tabular-nums">{duration(sessionSeconds(session, now))}</span>;
}

/** ▶ to the player; a role that may not replay sees it disabled with the reason. */
export function PlayLink({ session }: { session: Pick<Session, "uid" | "recorded" | "authenticated"> }) {
  const permission = usePermission("session.play");
  // A refused login never reached a terminal: there is nothing to play.
  if (!session.recorded || !session.authenticated)
    return <span className="text-sm text-slate-500 dark:text-slate-400">Not recorded</span>;
  if (!permission.allowed)
    return (
      <span
        aria-disabled
        title={permission.reason}
        className="inline-flex cursor-not-allowed items-center gap-1 text-sm text-slate-500 dark:text-slate-400"
      >
        <Play aria-hidden className="size-4" /> Play<span className="sr-only"> ({permission.reason})</span>
      </span>
    );
  return (
    <Link
      href={`/sessions/${session.uid}`}
      className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
    >
      <Play aria-hidden className="size-4" /> Play
    </Link>
  );
}

/** Close with a dialog that names the session; the failure stays in the dialog. */
export function CloseSessionButton({ session }: { session: Session }) {
  const permission = usePermission("session.close");
  const close = useCloseSession();
  const [isOpen, setOpen] = useState(false);
  if (!session.active) return null;
  return (
    <>
      <Button
        size="sm"
        variant="secondary"
        deniedReason={permission.reason}
        onClick={() => {
          close.reset();
          setOpen(true);
        }}
      >
        Close
        <span className="sr-only">
          {" "}
          the session of {session.username} on {session.device.name}
        </span>
      </Button>
      <ConfirmDialog
        isOpen={isOpen}
        onClose={() => setOpen(false)}
        title="Close this session?"
        description={
          <>
            The connection of <strong>{session.username}</strong> from {session.ip_address} to{" "}
            <strong>{session.device.name}</strong> is dropped at once. What it recorded stays.
          </>
        }
        confirmLabel="Close session"
        isPending={close.isPending}
        failure={close.isError ? failureText(close.error) : undefined}
        onConfirm={() => close.mutate(session, { onSuccess: () => setOpen(false) })}
      />
    </>
  );
}

/** Sessions as a table from `sm` up and as cards below it. */
export function SessionTable({ sessions, label }: { sessions: Session[]; label: string }) {
  return (
    <ResponsiveTable
      label={label}
      items={sessions}
      keyOf={(session) => session.uid}
      columns={[
        { header: "Status", cell: (session) => <SessionState session={session} /> },
        {
          header: "Device",
          className: "font-medium whitespace-nowrap",
          cell: (session) => (
            <Link
              href={`/devices/${session.device_uid}`}
              className="hover:text-indigo-700 hover:underline dark:hover:text-indigo-300"
            >
              {session.device.name}
            </Link>
          ),
        },
        { header: "Login", className: "font-mono text-xs", cell: (session) => session.username },
        {
          header: "Source IP",
          className: "hidden font-mono text-xs lg:table-cell",
          cell: (session) => session.ip_address,
        },
        {
          header: "Started",
          className: "whitespace-nowrap",
          cell: (session) => (
            <Link
              href={`/sessions/${session.uid}`}
              className="text-indigo-700 hover:underline dark:text-indigo-300"
              aria-label={`Session details: ${session.username} on ${session.device.name}, started ${new Date(session.started_at).toLocaleString()}`}
            >
              <RelativeTime value={session.started_at} />
            </Link>
          ),
        },
        {
          header: "Duration",
          className: "hidden whitespace-nowrap md:table-cell",
          cell: (session) => <SessionDuration session={session} />,
        },
        { header: "Authentication", cell: (session) => <LoginOutcome session={session} /> },
        { header: "Recording", cell: (session) => <PlayLink session={session} /> },
        { header: null, className: "text-right", cell: (session) => <CloseSessionButton session={session} /> },
      ]}
      card={(session) => (
        <>
          <div className="flex items-center justify-between gap-2">
            <Link href={`/sessions/${session.uid}`} className="truncate font-medium">
              {session.username} on {session.device.name}
            </Link>
            <SessionState session={session} />
          </div>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            {session.ip_address} · <RelativeTime value={session.started_at} /> · <SessionDuration session={session} />
          </p>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <LoginOutcome session={session} />
            <PlayLink session={session} />
            <CloseSessionButton session={session} />
          </div>
        </>
      )}
    />
  );
}
