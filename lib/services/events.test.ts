import { randomUUID } from "node:crypto";
import { max } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events } from "@/models/events";
import { withTestDatabase } from "@/testing/database";
import type { Db } from "../db";
import {
  hub,
  type LiveEvent,
  maxReplay,
  type NewEvent,
  publishEvents,
  replayEvents,
  unscopedPurgeEvents,
} from "./events";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const newEvent = (tenantId: string, uid = "d1"): NewEvent => ({
  tenantId,
  type: "device.updated",
  uid,
  patch: { name: uid },
});

async function lastId() {
  const [row] = await db.select({ id: max(events.id) }).from(events);
  return row?.id ?? 0;
}

describe("events", () => {
  it("are written in order, and replayed to a namespace after an id, its own only", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    await publishEvents(db, [newEvent(mine, "a")]);
    const before = await lastId();
    await Promise.all([
      publishEvents(db, [newEvent(mine, "b"), newEvent(theirs, "x")]),
      publishEvents(db, [newEvent(mine, "c")]),
    ]);
    const replay = await replayEvents(db, mine, before);
    expect(replay.kind).toBe("events");
    const replayed = replay.kind === "events" ? replay.events : [];
    expect(replayed.map((event) => event.uid)).toEqual(["b", "c"]);
    expect(replayed.every((event) => event.tenantId === mine && event.id > before)).toBe(true);
    expect(replayed.map((event) => event.id)).toEqual(replayed.map((event) => event.id).toSorted((a, b) => a - b));
  });

  it("are a reset for an id past the last one, or when more are missed than a replay sends", async () => {
    const tenantId = randomUUID();
    await publishEvents(db, [newEvent(tenantId)]);
    const last = await lastId();
    expect(await replayEvents(db, tenantId, last + 10)).toEqual({ kind: "reset", lastId: last });
    await publishEvents(
      db,
      Array.from({ length: maxReplay + 1 }, (_, index) => newEvent(tenantId, `d${index}`)),
    );
    expect(await replayEvents(db, tenantId, last)).toMatchObject({ kind: "reset" });
  });

  it("are handed to the listeners of their namespace once the hub runs", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    await hub().start(db);
    const received: LiveEvent[] = [];
    const stop = hub().subscribe(mine, (event) => received.push(event));
    try {
      await publishEvents(db, [newEvent(theirs, "x"), newEvent(mine, "y")]);
      await expect.poll(() => received.map((event) => event.uid)).toEqual(["y"]);
    } finally {
      stop();
      hub().stop();
    }
  });

  it("are purged after their retention, all but the newest, and a client that missed purged ones gets a reset", async () => {
    const tenantId = randomUUID();
    const old = new Date(Date.now() - 3_600_000);
    // Times rise with ids, as the writer makes them: everything written so far is old too.
    await db.update(events).set({ at: old });
    const rows = await db
      .insert(events)
      .values([1, 2, 3].map(() => ({ tenantId, type: "device.updated", subject: "d", at: old, patch: {} })))
      .returning({ id: events.id });
    const [first, , third] = rows.map((row) => row.id);
    await unscopedPurgeEvents(db, 600);
    const left = await db.select({ id: events.id }).from(events);
    expect(left.map((row) => row.id)).toEqual([third]);
    expect(await replayEvents(db, tenantId, (first ?? 0) - 1)).toMatchObject({ kind: "reset" });
    expect(await replayEvents(db, tenantId, third ?? 0)).toEqual({ kind: "events", events: [] });
    // Recent rows stay, and so does everything after the first recent one.
    await publishEvents(db, [newEvent(tenantId, "recent")]);
    await unscopedPurgeEvents(db, 600);
    const replay = await replayEvents(db, tenantId, third ?? 0);
    expect(replay.kind === "events" && replay.events.map((event) => event.uid)).toEqual(["recent"]);
  });
});
