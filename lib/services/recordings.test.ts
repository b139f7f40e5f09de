import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "@/models/sessions";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { seedScope } from "@/testing/rows/namespaces";
import { startRecordedSession } from "@/testing/rows/sessions";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { asciicastLines, readRecording, recordJsonChunks } from "./recordings";
import { appendFrames, maxFramesPerBatch } from "./sessions";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const startedAt = new Date("2024-05-01T10:00:00.000Z");
const at = (seconds: number) => new Date(startedAt.getTime() + seconds * 1000);
const frame = (seconds: number, message: string, width = 80, height = 24) => ({
  time: at(seconds),
  message,
  width,
  height,
});

async function recordedSession() {
  const session = await startRecordedSession(db);
  await db.update(sessions).set({ startedAt }).where(eq(sessions.uid, session.uid));
  return session;
}

async function text(chunks: AsyncIterable<string>) {
  let all = "";
  for await (const chunk of chunks) all += chunk;
  return all;
}

describe("readRecording", () => {
  it("plays in time order, then in the order written, across pages, reading one page at a time", async () => {
    const { scope, uid } = await recordedSession();
    // Equal times across page boundaries (pages of 200, 800, then 2,000): the cursor must
    // neither skip nor repeat.
    const batch = Array.from({ length: 4_500 }, (_, index) => frame(Math.floor(index / 1_000), `f${index}`));
    await appendFrames(db, scope.tenantId, uid, batch.slice(0, maxFramesPerBatch));
    await appendFrames(db, scope.tenantId, uid, [frame(0.5, "early")]);
    const { pages } = await readRecording(db, scope, uid);
    const sizes: number[] = [];
    const messages: string[] = [];
    for await (const page of pages) {
      sizes.push(page.length);
      messages.push(...page.map((played) => played.message));
    }
    expect(sizes).toEqual([200, 800, 2_000, 1_501]);
    const expected = batch.map((written) => written.message);
    expected.splice(1_000, 0, "early");
    expect(messages).toEqual(expected);
  });

  it("is a 404 for another namespace's session and for an unknown one", async () => {
    const { uid } = await recordedSession();
    const other = await seedScope(db);
    for (const attempt of [readRecording(db, other, uid), readRecording(db, other, randomUid())]) {
      await expect(attempt).rejects.toSatisfy((error) => error instanceof ApiError && error.status === 404);
    }
  });
});

describe("recordJsonChunks", () => {
  it("writes the frames as the play route's JSON array, and an empty recording as []", async () => {
    const { scope, uid } = await recordedSession();
    expect(JSON.parse(await text(recordJsonChunks(await readRecording(db, scope, uid))))).toEqual([]);
    await appendFrames(db, scope.tenantId, uid, [frame(1, "a"), frame(0, "b\u001b[0m")]);
    const played = JSON.parse(await text(recordJsonChunks(await readRecording(db, scope, uid))));
    expect(played).toEqual([
      { uid, message: "b\u001b[0m", tenant_id: scope.tenantId, time: at(0).toISOString(), width: 80, height: 24 },
      { uid, message: "a", tenant_id: scope.tenantId, time: at(1).toISOString(), width: 80, height: 24 },
    ]);
  });
});

describe("asciicastLines", () => {
  it("writes an asciicast v2 header, output events in seconds from the start, and resizes", async () => {
    const { scope, uid } = await recordedSession();
    await appendFrames(db, scope.tenantId, uid, [
      frame(0.25, "$ ", 120, 40),
      frame(1.5, "ls\r\n", 120, 40),
      frame(2, "wide\r\n", 160, 48),
      frame(3, "no size\r\n", 0, 0),
    ]);
    const lines = (await text(asciicastLines(await readRecording(db, scope, uid))))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({
      version: 2,
      width: 120,
      height: 40,
      timestamp: startedAt.getTime() / 1000,
      title: `root · session ${uid.slice(0, 8)}`,
      env: { TERM: "xterm-256color" },
    });
    expect(lines.slice(1)).toEqual([
      [0.25, "o", "$ "],
      [1.5, "o", "ls\r\n"],
      [2, "r", "160x48"],
      [2, "o", "wide\r\n"],
      [3, "o", "no size\r\n"],
    ]);
  });

  it("gives a recording without frames a header of the default size and nothing else", async () => {
    const { scope, uid } = await recordedSession();
    const lines = (await text(asciicastLines(await readRecording(db, scope, uid)))).trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ version: 2, width: 80, height: 24 });
  });
});
