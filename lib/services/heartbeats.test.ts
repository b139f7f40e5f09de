import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devicePresence } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { events } from "@/models/events";
import { sessions } from "@/models/sessions";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { markDeviceOffline } from "./agent";
import { type Heartbeat, HeartbeatWriter } from "./heartbeats";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const info = { id: "debian", pretty_name: "Debian 13", version: "0.2.0", arch: "arm64", platform: "native" };
const beatOf = (uid: string, tenantId: string, sessions: string[] = []): Heartbeat => ({
  uid,
  tenantId,
  remoteAddr: "198.51.100.9",
  info,
  sessions,
  proven: true,
});

async function deviceRow(uid: string) {
  const [row] = await db.select().from(devices).where(eq(devices.uid, uid));
  return row;
}

async function insertSession(tenantId: string, deviceUid: string) {
  const uid = randomUid();
  await db.insert(sessions).values({
    uid,
    tenantId,
    deviceUid,
    username: "root",
    ipAddress: "192.0.2.1",
    lastSeen: new Date("2000-01-01T00:00:00Z"),
  });
  return uid;
}

async function sessionLastSeen(uid: string) {
  const [row] = await db.select({ lastSeen: sessions.lastSeen }).from(sessions).where(eq(sessions.uid, uid));
  return row?.lastSeen.toISOString();
}

/** Until a statement of this database waits for a row lock (the writer's, in the test below). */
async function waitForLockWait() {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const result = await db.execute(
      sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if ((result as unknown as { rows: { waiting: number }[] }).rows[0]?.waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("no statement came to wait for the lock");
}

describe("heartbeat writer", () => {
  it("answers a heartbeat only once the statement holding it has committed", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId);
    const writer = new HeartbeatWriter(db);
    let answered: string | undefined;
    let recorded: Promise<string | undefined> = Promise.resolve(undefined);
    // While another transaction holds the device's row, the heartbeat's write cannot commit.
    await db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from devices where uid = ${uid} for update`);
      recorded = Promise.resolve(writer.record(beatOf(uid, scope.tenantId)));
      void recorded.then((name) => {
        answered = name;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBeUndefined();
    });
    const name = await recorded;
    expect(name).toBe((await deviceRow(uid))?.name);
    expect(await deviceRow(uid)).toMatchObject({ info, remoteAddr: "198.51.100.9", online: true });
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "locks a batch's rows in uid order, and writes it again when PostgreSQL breaks a deadlock by aborting it",
    async () => {
      const scope = await seedScope(db);
      // Stored in uid order too, so the statement locks `first` first whether it finds the rows
      // by index (in the batch's order) or by scanning the table.
      const [first = "", second = ""] = [randomUid(), randomUid()].sort();
      await insertDevice(db, scope.tenantId, "pending", first);
      await insertDevice(db, scope.tenantId, "pending", second);
      const writer = new HeartbeatWriter(db);
      let recorded: Promise<(string | undefined)[]> = Promise.resolve([]);
      await db.transaction(async (tx) => {
        await tx.execute(sql`select 1 from devices where uid = ${second} for update`);
        // One batch, listed in reverse: the writer locks `first`, then waits for `second`.
        recorded = Promise.all([second, first].map((uid) => writer.record(beatOf(uid, scope.tenantId))));
        await waitForLockWait();
        await new Promise((resolve) => setTimeout(resolve, 200));
        // Now this transaction waits for `first`: a deadlock, which PostgreSQL breaks a second
        // after the writer began to wait by aborting the writer's statement, the longer waiting.
        await tx.execute(sql`select 1 from devices where uid = ${first} for update`);
      });
      expect(await recorded).toEqual([(await deviceRow(second))?.name, (await deviceRow(first))?.name]);
      // At least one aborted statement and its retry; on a busy server the retry can meet a
      // deadlock once more (with another file's transactions) and take a third statement.
      expect(writer.totals.heartbeats).toBe(2);
      expect(writer.totals.statements).toBeGreaterThanOrEqual(2);
    },
  );

  it("writes a whole backlog in one statement and answers each heartbeat with its device's name", async () => {
    const scope = await seedScope(db);
    const uids = await Promise.all(Array.from({ length: 20 }, () => insertDevice(db, scope.tenantId)));
    const writer = new HeartbeatWriter(db);
    const names = await Promise.all(uids.map((uid) => writer.record(beatOf(uid, scope.tenantId))));
    expect(names).toEqual(await Promise.all(uids.map(async (uid) => (await deviceRow(uid))?.name)));
    expect(writer.totals).toEqual({ heartbeats: 20, statements: 1 });
  });

  it("announces the devices a batch brings back online, not those it keeps online", async () => {
    const scope = await seedScope(db);
    const [offline = "", online = ""] = await Promise.all([
      insertDevice(db, scope.tenantId),
      insertDevice(db, scope.tenantId),
    ]);
    await db.update(devices).set({ online: true }).where(eq(devices.uid, online));
    const writer = new HeartbeatWriter(db);
    await Promise.all([offline, online].map((uid) => writer.record(beatOf(uid, scope.tenantId))));
    const announced = async () =>
      (await db.select().from(events).where(eq(events.tenantId, scope.tenantId))).map((row) => [row.type, row.subject]);
    await expect.poll(announced).toEqual([["device.online", offline]]);
    await writer.record(beatOf(offline, scope.tenantId));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await announced()).toEqual([["device.online", offline]]);
  });

  it("answers undefined for a device that is not in the namespace the agent names, and leaves it alone", async () => {
    const scope = await seedScope(db);
    const other = await seedScope(db);
    const uid = await insertDevice(db, other.tenantId);
    const before = await deviceRow(uid);
    const writer = new HeartbeatWriter(db);
    expect(await writer.record(beatOf(uid, scope.tenantId))).toBeUndefined();
    expect(await writer.record(beatOf(randomUid(), scope.tenantId))).toBeUndefined();
    expect(await deviceRow(uid)).toEqual(before);
  });

  it("touches only the listed sessions of that device in that namespace", async () => {
    const scope = await seedScope(db);
    const other = await seedScope(db);
    const device = await insertDevice(db, scope.tenantId);
    const sibling = await insertDevice(db, scope.tenantId);
    const foreign = await insertDevice(db, other.tenantId);
    const own = await insertSession(scope.tenantId, device);
    const siblings = await insertSession(scope.tenantId, sibling);
    const foreigns = await insertSession(other.tenantId, foreign);
    const unlisted = await insertSession(scope.tenantId, device);
    const writer = new HeartbeatWriter(db);
    await writer.record(beatOf(device, scope.tenantId, [own, siblings, foreigns, randomUid()]));
    expect(await sessionLastSeen(own)).not.toBe("2000-01-01T00:00:00.000Z");
    for (const untouched of [siblings, foreigns, unlisted]) {
      expect(await sessionLastSeen(untouched)).toBe("2000-01-01T00:00:00.000Z");
    }
  });
  it("stamps last_seen in the presence row and writes the device's row only when something there changes", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId);
    const writer = new HeartbeatWriter(db);
    // xmin is the transaction that wrote the row's current version.
    const versions = async () => {
      const result = await db.execute(sql`
        select devices.xmin::text as device, device_presence.xmin::text as presence, device_presence.last_seen
        from devices join device_presence using (uid) where uid = ${uid}`);
      return (result as unknown as { rows: { device: string; presence: string; last_seen: string }[] }).rows[0];
    };
    await writer.record(beatOf(uid, scope.tenantId));
    const online = await versions();
    writer.record(beatOf(uid, scope.tenantId));
    await writer.flush();
    const steady = await versions();
    expect(steady?.device).toBe(online?.device);
    expect(steady?.presence).not.toBe(online?.presence);
    expect(Date.parse(steady?.last_seen ?? "")).toBeGreaterThan(Date.parse(online?.last_seen ?? ""));
    await writer.record({ ...beatOf(uid, scope.tenantId), remoteAddr: "203.0.113.4" });
    expect((await versions())?.device).not.toBe(steady?.device);
    expect(await deviceRow(uid)).toMatchObject({ remoteAddr: "203.0.113.4", online: true });
  });

  it("answers a steady heartbeat at once and stamps it a moment later, with the device's current name", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId);
    const writer = new HeartbeatWriter(db, { stampEveryMs: 100, confirmedWithinMs: 60_000 });
    const beat = beatOf(uid, scope.tenantId);
    const lastSeen = async () =>
      (await db.select().from(devicePresence).where(eq(devicePresence.uid, uid)))[0]?.lastSeen.getTime() ?? 0;

    // The first heartbeat of a process goes through the database.
    const name = (await deviceRow(uid))?.name;
    const first = writer.record(beat);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(name);
    const written = await lastSeen();
    // The next is answered with the name itself, no promise; its stamp lands within 100 ms.
    expect(writer.record(beat)).toBe(name);
    expect(writer.totals).toEqual({ heartbeats: 2, statements: 1 });
    await expect.poll(lastSeen).toBeGreaterThan(written);
    expect(writer.totals).toEqual({ heartbeats: 2, statements: 2 });

    // Renamed: the next stamp reads the new name, which the heartbeats after it answer.
    await db.update(devices).set({ name: "renamed" }).where(eq(devices.uid, uid));
    expect(writer.record(beat)).toBe(name);
    await writer.flush();
    expect(writer.record(beat)).toBe("renamed");
    await writer.flush();
  });

  it("sends a device's heartbeat through the database again once a stamp finds it offline, deleted or at another address", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId);
    // Stamps only when flushed: each step below counts its own statements.
    const writer = new HeartbeatWriter(db, { stampEveryMs: 60_000, confirmedWithinMs: 60_000 });
    const beat = beatOf(uid, scope.tenantId);
    const announced = async () =>
      (await db.select().from(events).where(eq(events.tenantId, scope.tenantId))).map((row) => row.type);
    const statementsFor = async (heartbeat: Heartbeat) => {
      const before = writer.totals.statements;
      const name = await writer.record(heartbeat);
      return { name, statements: writer.totals.statements - before };
    };
    const steadyThenStamped = async () => {
      expect(typeof writer.record(beat)).toBe("string");
      await writer.flush();
    };

    const name = (await deviceRow(uid))?.name;
    expect(await statementsFor(beat)).toEqual({ name, statements: 1 });
    await expect.poll(announced).toEqual(["device.online"]);

    // Taken offline by another instance (its offline timer, the agent's call through it): a stamp
    // never brings a device back online, so the agent's last call before it stopped cannot either.
    await db.update(devices).set({ online: false }).where(eq(devices.uid, uid));
    await steadyThenStamped();
    expect(await deviceRow(uid)).toMatchObject({ online: false });
    // The next heartbeat goes through the database, which brings the device back and says so.
    expect(await statementsFor(beat)).toEqual({ name, statements: 1 });
    expect(await deviceRow(uid)).toMatchObject({ online: true });
    await expect.poll(announced).toEqual(["device.online", "device.online"]);

    // Another address written by another instance: the agent's own address is written back.
    await db.update(devices).set({ remoteAddr: "203.0.113.77" }).where(eq(devices.uid, uid));
    await steadyThenStamped();
    expect(await statementsFor(beat)).toEqual({ name, statements: 1 });
    expect(await deviceRow(uid)).toMatchObject({ remoteAddr: beat.remoteAddr });

    // New information from the agent is not steady: written at once, and then the old again.
    expect(await statementsFor({ ...beat, info: { ...info, version: "0.3.0" } })).toEqual({ name, statements: 1 });
    expect(await deviceRow(uid)).toMatchObject({ info: { ...info, version: "0.3.0" } });
    expect(await statementsFor(beat)).toEqual({ name, statements: 1 });
    expect(await deviceRow(uid)).toMatchObject({ info });

    // Deleted: no name, so the agent's call registers it anew.
    await db.delete(devices).where(eq(devices.uid, uid));
    await steadyThenStamped();
    expect(await statementsFor(beat)).toEqual({ name: undefined, statements: 1 });
  });

  it("is not steady for a device taken offline through this process, nor one the database has not shown online lately", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId);
    const writer = new HeartbeatWriter(db, { stampEveryMs: 60_000, confirmedWithinMs: 60_000 });
    const beat = beatOf(uid, scope.tenantId);
    await writer.record(beat);
    await markDeviceOffline(db, uid, null);
    const back = writer.record(beat);
    expect(back).toBeInstanceOf(Promise);
    await back;
    expect(await deviceRow(uid)).toMatchObject({ online: true });

    // Confirmed online longer ago than allowed (here: any time ago): through the database each time.
    const wary = new HeartbeatWriter(db, { stampEveryMs: 60_000, confirmedWithinMs: 0 });
    await wary.record(beat);
    expect(wary.record(beat)).toBeInstanceOf(Promise);
  });

  it("sets no indexed column, so that heartbeat updates can be HOT (no new index entries)", async () => {
    const indexes = await db.execute(
      sql`select pg_get_indexdef(indexrelid) as definition from pg_index where indrelid = 'devices'::regclass`,
    );
    const definitions = (indexes as unknown as { rows: { definition: string }[] }).rows.map((row) => row.definition);
    expect(definitions.length).toBeGreaterThan(0);
    for (const definition of definitions) expect(definition).not.toMatch(/\b(last_seen|online|remote_addr|info)\b/);
    const options = await db.execute(sql`select reloptions from pg_class where oid = 'devices'::regclass`);
    expect((options as unknown as { rows: { reloptions: string[] }[] }).rows[0]?.reloptions).toContain("fillfactor=70");
  });
});
