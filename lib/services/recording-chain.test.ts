import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessionRecords } from "@/models/session-records";
import { sessions } from "@/models/sessions";
import { withTestDatabase } from "@/testing/database";
import { startRecordedSession } from "@/testing/rows/sessions";
import type { Db } from "../db";
import { unscopedVerifyRecording } from "./recording-chain";
import { appendFrames } from "./sessions";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const frame = (n: number) => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  message: `line ${n}\r\n`,
  width: 80,
  height: 24,
});

async function recordedSession(frames: number) {
  const { scope, uid } = await startRecordedSession(db);
  // Two batches, as the gateway writes them: the chain goes on across batches.
  const all = Array.from({ length: frames }, (_, index) => frame(index));
  const half = Math.floor(frames / 2);
  await appendFrames(db, scope.tenantId, uid, all.slice(0, half));
  await appendFrames(db, scope.tenantId, uid, all.slice(half));
  const ids = (
    await db.select({ id: sessionRecords.id }).from(sessionRecords).where(eq(sessionRecords.sessionUid, uid))
  )
    .map((row) => row.id)
    .sort((a, b) => a - b);
  return { uid, ids };
}

describe("the hash chain over a recording's frames", () => {
  it("proves a recording written in batches, and one written by concurrent batches", async () => {
    const { uid } = await recordedSession(10);
    expect(await unscopedVerifyRecording(db, uid)).toEqual({ intact: true, frames: 10, chained: true });
    const { scope, uid: other } = await startRecordedSession(db);
    await Promise.all(
      Array.from({ length: 8 }, (_, n) => appendFrames(db, scope.tenantId, other, [frame(n), frame(n)])),
    );
    expect(await unscopedVerifyRecording(db, other)).toEqual({ intact: true, frames: 16, chained: true });
  });

  it("names the first frame whose text was changed", async () => {
    const { uid, ids } = await recordedSession(6);
    await db
      .update(sessionRecords)
      .set({ message: "rm -rf /\r\n" })
      .where(eq(sessionRecords.id, ids[3] ?? 0));
    expect(await unscopedVerifyRecording(db, uid)).toMatchObject({ intact: false, frames: 3, brokenAt: ids[3] });
  });

  it("names the frame after one removed in the middle, and the end when the last ones were removed", async () => {
    const middle = await recordedSession(6);
    await db.delete(sessionRecords).where(eq(sessionRecords.id, middle.ids[2] ?? 0));
    expect(await unscopedVerifyRecording(db, middle.uid)).toMatchObject({ intact: false, brokenAt: middle.ids[3] });
    const end = await recordedSession(6);
    await db.delete(sessionRecords).where(sql`${sessionRecords.id} >= ${end.ids[4] ?? 0}`);
    expect(await unscopedVerifyRecording(db, end.uid)).toMatchObject({ intact: false, frames: 4, brokenAt: "end" });
  });

  it("finds frames moved from another recording, and says when a recording predates the chain", async () => {
    const target = await recordedSession(4);
    const source = await recordedSession(4);
    await db
      .update(sessionRecords)
      .set({ sessionUid: target.uid })
      .where(eq(sessionRecords.id, source.ids[0] ?? 0));
    expect(await unscopedVerifyRecording(db, target.uid)).toMatchObject({ intact: false, brokenAt: source.ids[0] });
    const old = await recordedSession(4);
    await db.update(sessionRecords).set({ hash: null }).where(eq(sessionRecords.sessionUid, old.uid));
    await db.update(sessions).set({ recordHash: null }).where(eq(sessions.uid, old.uid));
    expect(await unscopedVerifyRecording(db, old.uid)).toEqual({ intact: true, frames: 0, chained: false });
  });
});
