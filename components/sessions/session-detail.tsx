"use client";

import dynamic from "next/dynamic";
import Link from "next/link";
import { BackLink, Callout, Card, NotFoundNotice } from "@/components/ui/controls";
import { Facts } from "@/components/ui/facts";
import { RelativeTime } from "@/components/ui/relative-time";
import { ApiFailure, failureText } from "../console/api";
import { usePermission } from "../console/context";

// The player (and xterm) loads when there is a recording to play.
const Player = dynamic(() => import("./player").then((module) => module.Player), {
  ssr: false,
  loading: () => <p role="status">Loading the player…</p>,
});

import { type Session, useSession } from "./session-data";
import { CloseSessionButton, LoginOutcome, SessionDuration, SessionState } from "./session-table";

/** Why there is nothing to replay, and what would change it. */
function NoRecording({ session }: { session: Session }) {
  const settings = usePermission("namespace.update");
  return (
    <Callout kind="info">
      This session was not recorded: recording was off for the namespace when it started
      {session.type && session.type !== "shell" ? `, or it was not a terminal session (${session.type})` : ""}.
      {settings.allowed && (
        <>
          {" "}
          <Link href="/settings" className="font-medium underline">
            Session recording is switched in the namespace settings.
          </Link>
        </>
      )}
    </Callout>
  );
}

function Replay({ session }: { session: Session }) {
  const permission = usePermission("session.play");
  if (!session.recorded) return <NoRecording session={session} />;
  if (!permission.allowed) return <Callout kind="info">Replaying a session: {permission.reason}.</Callout>;
  return <Player uid={session.uid} />;
}

/** One session: who, where from, when, how it went, and its recording. */
export function SessionDetail({ uid }: { uid: string }) {
  const query = useSession(uid);
  const session = query.data?.data;

  if (query.isPending) return <p role="status">Loading the session…</p>;
  if (query.isError) {
    if (query.error instanceof ApiFailure && query.error.status === 404) {
      return (
        <NotFoundNotice title="Session not found" back={{ href: "/sessions", label: "Back to sessions" }}>
          No session of this namespace has this id. It may belong to another namespace.
        </NotFoundNotice>
      );
    }
    return <Callout kind="error">The session could not be loaded. {failureText(query.error)}</Callout>;
  }
  if (!session) return null;

  return (
    <div className="grid gap-6">
      <BackLink href="/sessions" label="Sessions" />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight break-all">
            {session.username} on {session.device.name}
          </h1>
          <p className="flex flex-wrap items-center gap-3 text-sm text-slate-600 dark:text-slate-400">
            <SessionState session={session} />
            <RelativeTime value={session.started_at} prefix="started " />
          </p>
        </div>
        <CloseSessionButton session={session} />
      </div>
      <div className="grid gap-6 xl:grid-cols-[1fr_20rem]">
        <section aria-labelledby="replay" className="grid min-w-0 content-start gap-3">
          <h2 id="replay" className="font-semibold">
            Recording
          </h2>
          <Replay session={session} />
        </section>
        <Card className="grid content-start gap-4 self-start p-4">
          <h2 className="font-semibold">Details</h2>
          <Facts
            rows={[
              [
                "Device",
                <Link
                  key="device"
                  href={`/devices/${session.device_uid}`}
                  className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                >
                  {session.device.name}
                </Link>,
              ],
              ["Login", <code key="login">{session.username}</code>],
              ["Source IP", <code key="ip">{session.ip_address}</code>],
              ["Started", new Date(session.started_at).toLocaleString()],
              [session.active ? "Last activity" : "Ended", new Date(session.last_seen).toLocaleString()],
              ["Duration", <SessionDuration key="duration" session={session} />],
              ["Authentication", <LoginOutcome key="outcome" session={session} />],
              ["Type", session.type],
              ["Terminal", session.term],
              ["Recorded", session.recorded ? "Yes" : "No"],
              ...(session.reason ? ([["Reason", session.reason]] as [string, string][]) : []),
              [
                "Session ID",
                <code key="uid" className="font-mono text-xs">
                  {session.uid}
                </code>,
              ],
            ]}
          />
        </Card>
      </div>
    </div>
  );
}
