import { createHash } from "node:crypto";
import { and, asc, eq, gt } from "drizzle-orm";
import { sessionRecords } from "@/models/session-records";
import { sessions } from "@/models/sessions";
import type { Executor } from "../db";
import { notFound } from "../errors";

/** What a frame's hash covers besides the one before it. */
export type ChainedFrame = { time: Date; message: string; width: number; height: number };

/** Where a session's chain starts: its uid, so that frames cannot be moved to another recording. */
export const recordingChainStart = (sessionUid: string) =>
  createHash("sha256").update(`recording:${sessionUid}`).digest("hex");

/** SHA-256 over the previous frame's hash and this frame's time, text and size. */
export function frameHash(previous: string, frame: ChainedFrame): string {
  const content = JSON.stringify([frame.time.toISOString(), frame.message, frame.width, frame.height]);
  return createHash("sha256").update(previous).update("\n").update(content).digest("hex");
}

/** Hashes frames in order after `previous`; answers each frame's hash. */
export function chainFrames(previous: string, frames: ChainedFrame[]): string[] {
  let last = previous;
  return frames.map((frame) => {
    last = frameHash(last, frame);
    return last;
  });
}

export type RecordingVerdict =
  | { intact: true; frames: number; chained: boolean }
  | { intact: false; frames: number; brokenAt: number | "end"; reason: string };

const pageFrames = 2_000;

/**
 * Walks a recording's frames in id order and recomputes the chain: names the first frame whose
 * content was changed or that does not follow the frame before it (one removed or inserted), or
 * the end when frames after the last one kept were removed. A recording made before frames were
 * chained has nothing to prove (`chained: false`). Crosses namespaces: the admin CLI's.
 */
export async function unscopedVerifyRecording(db: Executor, sessionUid: string): Promise<RecordingVerdict> {
  const [session] = await db.select({ head: sessions.recordHash }).from(sessions).where(eq(sessions.uid, sessionUid));
  if (!session) throw notFound(`session ${sessionUid}`);
  let previous = recordingChainStart(sessionUid);
  let frames = 0;
  for (let after = 0; ; ) {
    const page = await db
      .select()
      .from(sessionRecords)
      .where(and(eq(sessionRecords.sessionUid, sessionUid), gt(sessionRecords.id, after)))
      .orderBy(asc(sessionRecords.id))
      .limit(pageFrames);
    for (const row of page) {
      if (row.hash === null) {
        if (frames === 0 && session.head === null) return { intact: true, frames: 0, chained: false };
        return { intact: false, frames, brokenAt: row.id, reason: "it has no hash in a chained recording" };
      }
      if (frameHash(previous, row) !== row.hash) {
        return {
          intact: false,
          frames,
          brokenAt: row.id,
          reason: "its content was changed, or a frame before it was removed or inserted",
        };
      }
      previous = row.hash;
      frames += 1;
    }
    const last = page.at(-1);
    if (!last) break;
    after = last.id;
  }
  if (frames > 0 && session.head !== previous) {
    return { intact: false, frames, brokenAt: "end", reason: "frames after the last one were removed" };
  }
  if (frames === 0 && session.head !== null) {
    return { intact: false, frames, brokenAt: "end", reason: "its frames were removed" };
  }
  return { intact: true, frames, chained: frames > 0 };
}
