import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { type DeviceRow, deviceColumns, devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { sessionRecords } from "@/models/session-records";
import { type SessionRow, sessions } from "@/models/sessions";
import type { DeviceCaller, Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { ApiError, conflict, isUniqueViolation, notFound } from "../errors";
import { processEvent } from "../process-state";
import { paged } from "../results";
import { recordFrame, type SessionListQuery } from "../schemas/sessions";
import { audited } from "./audit";
import { describeDevice, namespaceState } from "./device-view";
import { publishEvents } from "./events";
import { chainFrames, recordingChainStart } from "./recording-chain";

// Views

const describeSession = (session: SessionRow, device: DeviceRow, namespace: { name: string; isFull: boolean }) => ({
  uid: session.uid,
  device_uid: session.deviceUid,
  device: describeDevice(device, namespace.name, namespace.isFull),
  tenant_id: session.tenantId,
  username: session.username,
  ip_address: session.ipAddress,
  started_at: session.startedAt,
  last_seen: session.lastSeen,
  active: session.active,
  authenticated: session.authenticated,
  recorded: session.recorded,
  type: session.type,
  term: session.term,
  reason: session.reason,
  position: session.position ?? null,
});

const withDevice = (db: Executor) =>
  db
    .select({ session: sessions, device: deviceColumns })
    .from(sessions)
    .innerJoin(devices, eq(devices.uid, sessions.deviceUid))
    .innerJoin(devicePresence, presenceOfDevice);

async function sessionView(db: Executor, tenantId: string, uid: string) {
  const [row] = await withDevice(db).where(and(eq(sessions.tenantId, tenantId), eq(sessions.uid, uid)));
  if (!row) throw notFound("session");
  return describeSession(row.session, row.device, await namespaceState(db, tenantId));
}

// The API

/** The namespace's sessions, newest first, narrowed by the query's filters. */
export async function listSessions(db: Executor, scope: Scope, query: SessionListQuery) {
  const where = and(
    eq(sessions.tenantId, scope.tenantId),
    query.device_uid === undefined ? undefined : eq(sessions.deviceUid, query.device_uid),
    query.active === undefined ? undefined : eq(sessions.active, query.active),
    query.authenticated === undefined ? undefined : eq(sessions.authenticated, query.authenticated),
    query.recorded === undefined ? undefined : eq(sessions.recorded, query.recorded),
    query.username === undefined ? undefined : eq(sessions.username, query.username),
  );
  const { rows, total } = await readPage(
    db,
    { from: sessions, where },
    withDevice(db).where(where).orderBy(desc(sessions.startedAt), desc(sessions.uid)).$dynamic(),
    query,
  );
  const namespace = await namespaceState(db, scope.tenantId);
  return paged(
    rows.map((row) => describeSession(row.session, row.device, namespace)),
    total,
  );
}

export const getSession = (db: Executor, scope: Scope, uid: string) => sessionView(db, scope.tenantId, uid);

export type ClosedSession = { uid: string; tenantId: string; deviceUid: string };

/**
 * A session was closed through the API (and marked inactive): the SSH gateway subscribes with
 * `sessionClosed.on` to drop the live connection.
 */
export const sessionClosed = processEvent<ClosedSession>("session closed");

/** Marks a session of the namespace inactive; `deviceUid` must be the session's device. */
export async function closeSession(db: Executor, scope: Scope, uid: string, deviceUid: string) {
  const closed = await audited(
    db,
    scope,
    "session.close",
    async (tx) => {
      const [row] = await tx
        .update(sessions)
        .set({ active: false })
        .where(and(eq(sessions.tenantId, scope.tenantId), eq(sessions.uid, uid), eq(sessions.deviceUid, deviceUid)))
        .returning({ uid: sessions.uid, tenantId: sessions.tenantId, deviceUid: sessions.deviceUid });
      if (!row) throw notFound("session");
      return row;
    },
    () => ({ target: { type: "session", id: uid }, details: { device: deviceUid } }),
  );
  sessionClosed.emit(closed);
  await announceEnded(db, [{ uid: closed.uid, tenantId: closed.tenantId, patch: { active: false } }]);
}

/** Tells the namespaces' live streams that these sessions ended. */
const announceEnded = (db: Executor, ended: { uid: string; tenantId: string; patch: Record<string, unknown> }[]) =>
  publishEvents(
    db,
    ended.map((session) => ({
      tenantId: session.tenantId,
      type: "session.ended" as const,
      uid: session.uid,
      patch: session.patch,
    })),
  );

/**
 * Stores one frame sent by the agent (its device token) or by the gateway (`device` null: the
 * internal secret). The agent reaches only sessions of its own device in its own namespace.
 * A bad frame, or one for a session that is not recorded or has ended, is a 422: nobody writes
 * into a recording after the session is over.
 */
export async function recordSession(db: Executor, device: DeviceCaller | null, uid: string, body: unknown) {
  const parsed = recordFrame.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "frame"}: ${issue.message}`);
    throw new ApiError(422, `bad frame: ${issues.join("; ")}`);
  }
  const frame = parsed.data;
  if (frame.uid !== uid) throw new ApiError(422, "bad frame: uid is not the session's uid");
  const [session] = await db
    .select({ tenantId: sessions.tenantId, recorded: sessions.recorded, active: sessions.active })
    .from(sessions)
    .where(
      and(
        eq(sessions.uid, uid),
        device ? and(eq(sessions.deviceUid, device.uid), eq(sessions.tenantId, device.tenantId)) : undefined,
      ),
    );
  if (!session) throw notFound("session");
  if (!session.recorded) throw new ApiError(422, "the session is not recorded");
  if (!session.active) throw new ApiError(422, "the session has ended");
  await appendFrames(db, session.tenantId, uid, [{ time: new Date(), ...frame }]);
}

// For the SSH gateway (and the server-internal operations)

export type NewSession = {
  uid: string;
  tenantId: string;
  deviceUid: string;
  username: string;
  ipAddress: string;
  type: string;
  term: string;
  recorded: boolean;
};

/**
 * A new active session on a device of the namespace; 404 when the device is not there. The
 * namespace's live streams get it whole, as the API shows it.
 */
export async function createSession(db: Executor, input: NewSession) {
  await db.transaction(async (tx) => {
    // The lock keeps the device from being deleted between this check and the insert.
    const [device] = await tx
      .select({ uid: devices.uid })
      .from(devices)
      .where(and(eq(devices.uid, input.deviceUid), eq(devices.tenantId, input.tenantId)))
      .for("share");
    if (!device) throw notFound("device");
    await tx
      .insert(sessions)
      .values(input)
      .catch((error: unknown) => {
        throw isUniqueViolation(error, "sessions_pkey") ? conflict("a session with this uid already exists") : error;
      });
  });
  const view = await sessionView(db, input.tenantId, input.uid);
  await publishEvents(db, [{ tenantId: input.tenantId, type: "session.started", uid: input.uid, patch: view }]);
  return view;
}

/**
 * A session started by a gateway that knows only the device: the namespace is the device's,
 * and the session is recorded when the namespace records sessions. Unscoped: only the server's
 * own parts (holding the internal secret) call it.
 */
export async function unscopedStartSession(db: Executor, input: Omit<NewSession, "tenantId" | "recorded">) {
  const [device] = await db
    .select({ tenantId: devices.tenantId, recorded: namespaces.sessionRecord })
    .from(devices)
    .innerJoin(namespaces, eq(namespaces.tenantId, devices.tenantId))
    .where(eq(devices.uid, input.deviceUid));
  if (!device) throw notFound("device");
  return createSession(db, { ...input, tenantId: device.tenantId, recorded: device.recorded });
}

/** Unscoped for the same reason as `unscopedStartSession`: the session uid alone names it. */
export async function unscopedSetAuthenticated(db: Executor, uid: string, authenticated: boolean) {
  const [updated] = await db
    .update(sessions)
    .set({ authenticated })
    .where(eq(sessions.uid, uid))
    .returning({ uid: sessions.uid });
  if (!updated) throw notFound("session");
}

/**
 * The heartbeat's list of live sessions: `last_seen` moves only for sessions of that device in
 * that namespace, whatever uids the agent sends. Returns how many were touched.
 */
export async function touchSessions(db: Executor, deviceUid: string, tenantId: string, uids: string[]) {
  if (uids.length === 0) return 0;
  const touched = await db
    .update(sessions)
    .set({ lastSeen: sql`now()` })
    .where(and(eq(sessions.deviceUid, deviceUid), eq(sessions.tenantId, tenantId), inArray(sessions.uid, uids)))
    .returning({ uid: sessions.uid });
  return touched.length;
}

/**
 * What the session's first channel is (`shell`, `exec`, `scp`, `sftp`, `direct-tcpip`) and its
 * terminal type; later channels of the same connection do not change it. Unscoped, as above.
 */
export async function unscopedSetSessionKind(db: Executor, uid: string, type: string, term: string) {
  await db
    .update(sessions)
    .set({ type, term })
    .where(and(eq(sessions.uid, uid), eq(sessions.type, "")));
}

/**
 * The connection ended: the session stays listed, inactive, with the reason the gateway refused
 * or ended it (empty when it went well). False when there is no such session.
 */
export async function endSession(db: Executor, tenantId: string, uid: string, reason = "") {
  // The row as it was says whether the session was still active (not closed through the API already).
  const earlier = alias(sessions, "earlier");
  const ended = await db
    .update(sessions)
    .set({ active: false, lastSeen: sql`now()`, reason })
    .from(earlier)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.uid, uid), eq(earlier.uid, sessions.uid)))
    .returning({ uid: sessions.uid, lastSeen: sessions.lastSeen, wasActive: earlier.active });
  const [row] = ended;
  if (row?.wasActive) await announceEnded(db, [{ uid, tenantId, patch: { active: false, last_seen: row.lastSeen } }]);
  return row !== undefined;
}

/**
 * Ends the sessions left active by a server that stopped without ending them (a crash): only
 * when no other instance can be serving them (the embedded database has one). Returns how many.
 */
export async function unscopedEndOrphanedSessions(db: Executor) {
  const ended = await db
    .update(sessions)
    .set({ active: false, reason: "the server stopped during the session" })
    .where(eq(sessions.active, true))
    .returning({ uid: sessions.uid, tenantId: sessions.tenantId });
  await announceEnded(
    db,
    ended.map((session) => ({ ...session, patch: { active: false } })),
  );
  return ended.length;
}

/**
 * Which of these sessions are marked inactive: another instance answered their
 * `POST /api/sessions/{uid}/close`. Unscoped: the uids alone name them.
 */
export async function unscopedInactiveSessions(db: Executor, uids: string[]) {
  const inactive = await db
    .select({ uid: sessions.uid })
    .from(sessions)
    .where(and(inArray(sessions.uid, uids), eq(sessions.active, false)));
  return inactive.map((row) => row.uid);
}

export type Frame = { time: Date; message: string; width: number; height: number };

/** Bound parameters per statement stay far below PostgreSQL's 65,535. */
export const maxFramesPerBatch = 5_000;

/**
 * Stores frames of a recorded session of the namespace in one multi-row INSERT (the gateway
 * batches terminal output), each with its link of the recording's hash chain: the session's row is
 * locked while a batch extends the chain, so batches of one session are chained one at a time.
 * Frames for a session that is not recorded, or not in the namespace, are dropped. Returns how
 * many were stored.
 */
export async function appendFrames(db: Executor, tenantId: string, sessionUid: string, frames: Frame[]) {
  if (frames.length === 0) return 0;
  if (frames.length > maxFramesPerBatch) throw new Error(`at most ${maxFramesPerBatch} frames per batch`);
  return db.transaction(async (tx) => {
    const [session] = await tx
      .select({ head: sessions.recordHash })
      .from(sessions)
      .where(and(eq(sessions.uid, sessionUid), eq(sessions.tenantId, tenantId), eq(sessions.recorded, true)))
      .for("no key update");
    if (!session) return 0;
    const hashes = chainFrames(session.head ?? recordingChainStart(sessionUid), frames);
    const stored = await tx
      .insert(sessionRecords)
      .values(frames.map((frame, index) => ({ sessionUid, tenantId, ...frame, hash: hashes[index] })))
      .returning({ id: sessionRecords.id });
    await tx
      .update(sessions)
      .set({ recordHash: hashes.at(-1) })
      .where(eq(sessions.uid, sessionUid));
    return stored.length;
  });
}
