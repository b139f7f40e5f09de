import { eq, inArray } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { namespaces } from "@/models/namespaces";
import { sessionRecords } from "@/models/session-records";
import { sessions } from "@/models/sessions";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { ApiError } from "../errors";
import type { SessionListQuery } from "../schemas/sessions";
import { unscopedVerifyRecording } from "./recording-chain";
import {
  appendFrames,
  type ClosedSession,
  closeSession,
  createSession,
  endSession,
  listSessions,
  maxFramesPerBatch,
  sessionClosed,
  touchSessions,
  unscopedInactiveSessions,
} from "./sessions";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

/** A namespace with its owner's scope. */
async function newNamespace(): Promise<{ tenantId: string; scope: Scope }> {
  const scope = await seedScope(db);
  return { tenantId: scope.tenantId, scope };
}

async function newSession(tenantId: string, deviceUid: string, recorded = false) {
  const uid = randomUid();
  await createSession(db, {
    uid,
    tenantId,
    deviceUid,
    username: "root",
    ipAddress: "192.0.2.1",
    type: "shell",
    term: "xterm",
    recorded,
  });
  return uid;
}

async function sessionRow(uid: string) {
  const [row] = await db.select().from(sessions).where(eq(sessions.uid, uid));
  if (!row) throw new Error("no session");
  return row;
}

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof ApiError ? error.status : error),
  );

describe("createSession", () => {
  it("starts an active session and answers it with its device", async () => {
    const { tenantId } = await newNamespace();
    const device = await insertDevice(db, tenantId);
    const uid = randomUid();
    const created = await createSession(db, {
      uid,
      tenantId,
      deviceUid: device,
      username: "alice",
      ipAddress: "2001:db8::1",
      type: "exec",
      term: "",
      recorded: true,
    });
    expect(created).toMatchObject({
      uid,
      device_uid: device,
      tenant_id: tenantId,
      username: "alice",
      ip_address: "2001:db8::1",
      active: true,
      authenticated: false,
      recorded: true,
      type: "exec",
      term: "",
      position: null,
    });
    expect(created.device).toMatchObject({ uid: device, tenant_id: tenantId, status: "pending", acceptable: true });
  });

  it("refuses a device of another namespace (404) and a uid in use (409), storing nothing", async () => {
    const [own, other] = await Promise.all([newNamespace(), newNamespace()]);
    const foreignDevice = await insertDevice(db, other.tenantId);
    const uid = randomUid();
    const input = {
      uid,
      tenantId: own.tenantId,
      deviceUid: foreignDevice,
      username: "root",
      ipAddress: "192.0.2.1",
      type: "",
      term: "",
      recorded: false,
    };
    expect(await statusOf(createSession(db, input))).toBe(404);
    expect(await db.select().from(sessions).where(eq(sessions.uid, uid))).toEqual([]);

    const existing = await newSession(own.tenantId, await insertDevice(db, own.tenantId));
    const device = await insertDevice(db, own.tenantId);
    expect(await statusOf(createSession(db, { ...input, uid: existing, deviceUid: device }))).toBe(409);
    expect((await sessionRow(existing)).deviceUid).not.toBe(device);
  });
});

describe("touchSessions", () => {
  it("moves last_seen only for sessions of that device in that namespace", async () => {
    const [own, other] = await Promise.all([newNamespace(), newNamespace()]);
    const device = await insertDevice(db, own.tenantId);
    const sibling = await insertDevice(db, own.tenantId);
    const foreign = await insertDevice(db, other.tenantId);
    const mine = [await newSession(own.tenantId, device), await newSession(own.tenantId, device)];
    const siblings = await newSession(own.tenantId, sibling);
    const foreigners = await newSession(other.tenantId, foreign);
    const all = [...mine, siblings, foreigners];
    const past = new Date("2020-01-01T00:00:00Z");
    await db.update(sessions).set({ lastSeen: past }).where(inArray(sessions.uid, all));

    const listed = [mine[0] ?? "", siblings, foreigners, randomUid()];
    expect(await touchSessions(db, device, own.tenantId, listed)).toBe(1);
    // The right device with the wrong namespace touches nothing either.
    expect(await touchSessions(db, device, other.tenantId, all)).toBe(0);
    expect(await touchSessions(db, foreign, own.tenantId, all)).toBe(0);
    expect(await touchSessions(db, device, own.tenantId, [])).toBe(0);

    const seen = Object.fromEntries(
      await Promise.all(all.map(async (uid) => [uid, (await sessionRow(uid)).lastSeen.getTime() > past.getTime()])),
    );
    expect(seen).toEqual({ [mine[0] ?? ""]: true, [mine[1] ?? ""]: false, [siblings]: false, [foreigners]: false });
  });
});

describe("endSession", () => {
  it("marks the session of the namespace inactive, and no other namespace's", async () => {
    const [own, other] = await Promise.all([newNamespace(), newNamespace()]);
    const uid = await newSession(own.tenantId, await insertDevice(db, own.tenantId));
    expect(await endSession(db, other.tenantId, uid)).toBe(false);
    expect((await sessionRow(uid)).active).toBe(true);
    expect(await endSession(db, own.tenantId, uid)).toBe(true);
    expect((await sessionRow(uid)).active).toBe(false);
    expect(await endSession(db, own.tenantId, randomUid())).toBe(false);
  });
});

describe("appendFrames", () => {
  const frameAt = (time: Date, message: string) => ({ time, message, width: 80, height: 24 });

  it("stores a batch in the order given, each frame chained to the one before", async () => {
    const { tenantId } = await newNamespace();
    const uid = await newSession(tenantId, await insertDevice(db, tenantId), true);
    const early = new Date("2024-05-01T10:00:00.000Z");
    const late = new Date("2024-05-01T10:00:01.000Z");
    const batch = [frameAt(late, "c"), frameAt(early, "a"), frameAt(early, "b"), frameAt(late, "d")];
    expect(await appendFrames(db, tenantId, uid, batch)).toBe(4);
    const stored = await db
      .select()
      .from(sessionRecords)
      .where(eq(sessionRecords.sessionUid, uid))
      .orderBy(sessionRecords.id);
    expect(stored.map((frame) => frame.message)).toEqual(["c", "a", "b", "d"]);
    expect(await unscopedVerifyRecording(db, uid)).toEqual({ intact: true, frames: 4, chained: true });
  });

  it("drops frames of a session that is not recorded or not in the namespace", async () => {
    const [own, other] = await Promise.all([newNamespace(), newNamespace()]);
    const device = await insertDevice(db, own.tenantId);
    const plain = await newSession(own.tenantId, device, false);
    const recorded = await newSession(own.tenantId, device, true);
    const batch = [frameAt(new Date(), "x")];
    expect(await appendFrames(db, own.tenantId, plain, batch)).toBe(0);
    expect(await appendFrames(db, other.tenantId, recorded, batch)).toBe(0);
    expect(await appendFrames(db, own.tenantId, randomUid(), batch)).toBe(0);
    expect(await appendFrames(db, own.tenantId, recorded, [])).toBe(0);
    const stored = await db
      .select()
      .from(sessionRecords)
      .where(inArray(sessionRecords.sessionUid, [plain, recorded]));
    expect(stored).toEqual([]);
  });

  it("refuses a batch over the limit", async () => {
    const { tenantId } = await newNamespace();
    const uid = await newSession(tenantId, await insertDevice(db, tenantId), true);
    const batch = Array.from({ length: maxFramesPerBatch + 1 }, () => frameAt(new Date(), "x"));
    await expect(appendFrames(db, tenantId, uid, batch)).rejects.toThrow(/at most/);
    expect(await appendFrames(db, tenantId, uid, batch.slice(1))).toBe(maxFramesPerBatch);
  });
});

describe("closeSession", () => {
  it("marks the session inactive and tells every close listener, once per close", async () => {
    const { tenantId, scope } = await newNamespace();
    const device = await insertDevice(db, tenantId);
    const uid = await newSession(tenantId, device);
    const heard: ClosedSession[] = [];
    const failing = vi.fn(() => {
      throw new Error("listener broke");
    });
    const unsubscribe = [sessionClosed.on((session) => heard.push(session)), sessionClosed.on(failing)];
    try {
      await closeSession(db, scope, uid, device);
      expect((await sessionRow(uid)).active).toBe(false);
      expect(heard).toEqual([{ uid, tenantId, deviceUid: device }]);
      expect(failing).toHaveBeenCalledTimes(1);
    } finally {
      for (const stop of unsubscribe) stop();
    }
    await closeSession(db, scope, uid, device);
    expect(heard).toHaveLength(1);
  });

  it("changes nothing and tells nobody for another device, namespace or unknown session (404)", async () => {
    const [own, other] = await Promise.all([newNamespace(), newNamespace()]);
    const device = await insertDevice(db, own.tenantId);
    const uid = await newSession(own.tenantId, device);
    const listener = vi.fn();
    const stop = sessionClosed.on(listener);
    try {
      expect(await statusOf(closeSession(db, own.scope, uid, await insertDevice(db, own.tenantId)))).toBe(404);
      expect(await statusOf(closeSession(db, other.scope, uid, device))).toBe(404);
      expect(await statusOf(closeSession(db, own.scope, randomUid(), device))).toBe(404);
    } finally {
      stop();
    }
    expect(listener).not.toHaveBeenCalled();
    expect((await sessionRow(uid)).active).toBe(true);
  });
});

describe("listSessions", () => {
  it("says a device is not acceptable when the namespace is full", async () => {
    const { tenantId, scope } = await newNamespace();
    await db.update(namespaces).set({ maxDevices: 1 }).where(eq(namespaces.tenantId, tenantId));
    await insertDevice(db, tenantId, "accepted");
    const pending = await insertDevice(db, tenantId);
    await newSession(tenantId, pending);
    const page = await listSessions(db, scope, { page: 1, per_page: 10 });
    expect(page.total).toBe(1);
    expect(page.items[0]?.device).toMatchObject({ uid: pending, status: "pending", acceptable: false });
  });

  it("narrows by device, live or ended, authenticated, recorded and login, within the namespace", async () => {
    const own = await newNamespace();
    const other = await newNamespace();
    const [first, second] = [await insertDevice(db, own.tenantId), await insertDevice(db, own.tenantId)];
    const live = await newSession(own.tenantId, first, true);
    const ended = await newSession(own.tenantId, first);
    const elsewhere = await newSession(own.tenantId, second);
    await endSession(db, own.tenantId, ended);
    await db.update(sessions).set({ authenticated: true, username: "admin" }).where(eq(sessions.uid, elsewhere));
    await newSession(other.tenantId, await insertDevice(db, other.tenantId), true);
    const uids = async (filters: Partial<SessionListQuery>) => {
      const page = await listSessions(db, own.scope, { page: 1, per_page: 10, ...filters });
      expect(page.total).toBe(page.items.length);
      return page.items.map((session) => session.uid).sort();
    };
    expect(await uids({})).toEqual([live, ended, elsewhere].sort());
    expect(await uids({ device_uid: first })).toEqual([live, ended].sort());
    expect(await uids({ active: true })).toEqual([live, elsewhere].sort());
    expect(await uids({ active: false })).toEqual([ended]);
    expect(await uids({ authenticated: true })).toEqual([elsewhere]);
    expect(await uids({ recorded: true })).toEqual([live]);
    expect(await uids({ username: "admin", device_uid: second })).toEqual([elsewhere]);
    expect(await uids({ username: "nobody" })).toEqual([]);
  });
});

describe("unscopedInactiveSessions", () => {
  it("names the sessions marked inactive among those asked about, in any namespace", async () => {
    const own = await newNamespace();
    const other = await newNamespace();
    const ownDevice = await insertDevice(db, own.tenantId);
    const otherDevice = await insertDevice(db, other.tenantId);
    const active = await newSession(own.tenantId, ownDevice);
    const closed = await newSession(own.tenantId, ownDevice);
    const ended = await newSession(other.tenantId, otherDevice);
    const notAsked = await newSession(other.tenantId, otherDevice);
    await closeSession(db, own.scope, closed, ownDevice);
    await endSession(db, other.tenantId, ended);
    await endSession(db, other.tenantId, notAsked);
    const inactive = await unscopedInactiveSessions(db, [active, closed, ended, randomUid()]);
    expect(inactive.sort()).toEqual([closed, ended].sort());
  });
});
