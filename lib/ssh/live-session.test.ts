import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessions } from "@/models/sessions";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { LiveSession, newSessionUid } from "./live-session";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

afterEach(() => {
  vi.useRealTimers();
});

async function sessionRow(uid: string) {
  const [row] = await db.select().from(sessions).where(eq(sessions.uid, uid));
  return row;
}

async function until(condition: () => Promise<boolean>) {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition not met within 5 s");
}

describe("a live gateway session", () => {
  it("refreshes its row's last_seen every 30 s while data flows, and is ended with its reason", async () => {
    // Only the session's own interval is driven by hand; the database's timers stay real.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const scope = await seedScope(db);
    const deviceUid = await insertDevice(db, scope.tenantId, "accepted");
    const device = {
      uid: deviceUid,
      tenantId: scope.tenantId,
      name: "device",
      tags: [],
      publicKey: "",
      isRecorded: false,
      announcement: "",
    };
    const uid = newSessionUid();
    const session = await LiveSession.start(db, { uid, device, username: "root", ipAddress: "192.0.2.7" }, () => {});
    const longAgo = new Date("2000-01-01T00:00:00Z");
    await db.update(sessions).set({ lastSeen: longAgo }).where(eq(sessions.uid, uid));

    // No traffic, no write: the agent's heartbeat vouches for idle sessions.
    vi.advanceTimersByTime(30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await sessionRow(uid))?.lastSeen).toEqual(longAgo);

    session.output(Buffer.from("prompt$ "));
    vi.advanceTimersByTime(29_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await sessionRow(uid))?.lastSeen).toEqual(longAgo);
    vi.advanceTimersByTime(1_000);
    await until(async () => ((await sessionRow(uid))?.lastSeen.getTime() ?? 0) > longAgo.getTime());

    session.close("closed through the API");
    await session.end();
    expect(await sessionRow(uid)).toMatchObject({ active: false, reason: "closed through the API" });
  });
});
