import { and, asc, eq, sql } from "drizzle-orm";
import { sessionRecords } from "@/models/session-records";
import { sessions } from "@/models/sessions";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { notFound } from "../errors";

/**
 * A recording is read a page of frames at a time, in play order (time, then insertion), with a
 * keyset cursor: a reader never holds more than one page of a recording, however long it is,
 * and a slow reader holds no database connection between pages. The first page is small so
 * that a player starts at once; the pages grow to `framesPerPage`.
 */
const firstPageFrames = 200;
const framesPerPage = 2_000;

export type RecordedFrame = { time: Date; message: string; width: number; height: number };

export type Recording = {
  session: { uid: string; tenantId: string; startedAt: Date; term: string; username: string };
  /** The frames, page after page; read it once. */
  pages: AsyncIterable<RecordedFrame[]>;
};

async function* framePages(db: Executor, tenantId: string, uid: string): AsyncGenerator<RecordedFrame[]> {
  // The cursor's time is PostgreSQL's own text: a JavaScript Date would drop its microseconds.
  let after: { time: string; id: number } | undefined;
  let pageSize = firstPageFrames;
  for (;;) {
    const rows = await db.transaction(async (tx) => {
      // Without statistics for a new recording (and PGlite has no autovacuum to gather them),
      // the planner picks a bitmap scan and sorts the whole recording for every page: a page
      // would cost as much as the recording is long. The play index gives the order as it is.
      await tx.execute(sql`set local enable_bitmapscan = off`);
      await tx.execute(sql`set local enable_sort = off`);
      return selectFramePage(tx, tenantId, uid, pageSize, after);
    });
    if (rows.length > 0) yield rows.map(({ time, message, width, height }) => ({ time, message, width, height }));
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { time: last.cursorTime, id: last.id };
    pageSize = Math.min(framesPerPage, pageSize * 4);
  }
}

function selectFramePage(
  db: Executor,
  tenantId: string,
  uid: string,
  size: number,
  after?: { time: string; id: number },
) {
  return db
    .select({
      id: sessionRecords.id,
      time: sessionRecords.time,
      cursorTime: sql<string>`${sessionRecords.time}::text`,
      message: sessionRecords.message,
      width: sessionRecords.width,
      height: sessionRecords.height,
    })
    .from(sessionRecords)
    .where(
      and(
        eq(sessionRecords.sessionUid, uid),
        eq(sessionRecords.tenantId, tenantId),
        after && sql`(${sessionRecords.time}, ${sessionRecords.id}) > (${after.time}::timestamptz, ${after.id})`,
      ),
    )
    .orderBy(asc(sessionRecords.time), asc(sessionRecords.id))
    .limit(size);
}

/** A session of the namespace and its recorded frames (none when it was not recorded); 404 when not there. */
export async function readRecording(db: Executor, scope: Scope, uid: string): Promise<Recording> {
  const [session] = await db
    .select({
      uid: sessions.uid,
      tenantId: sessions.tenantId,
      startedAt: sessions.startedAt,
      term: sessions.term,
      username: sessions.username,
    })
    .from(sessions)
    .where(and(eq(sessions.tenantId, scope.tenantId), eq(sessions.uid, uid)));
  if (!session) throw notFound("session");
  return { session, pages: framePages(db, session.tenantId, uid) };
}

/** `GET /api/sessions/{uid}/play`'s JSON array, written a page at a time. */
export async function* recordJsonChunks({ session, pages }: Recording): AsyncGenerator<string> {
  let separator = "[";
  for await (const page of pages) {
    const items = page.map((frame) =>
      JSON.stringify({
        uid: session.uid,
        message: frame.message,
        tenant_id: session.tenantId,
        time: frame.time.toISOString(),
        width: frame.width,
        height: frame.height,
      }),
    );
    yield `${separator}${items.join(",")}`;
    separator = ",";
  }
  yield separator === "[" ? "[]" : "]";
}

const defaultSize = { width: 80, height: 24 };

/**
 * The recording as an asciicast v2 file (https://docs.asciinema.org/manual/asciicast/v2/): a
 * header line, then one `[seconds, "o", text]` line per frame, with `[seconds, "r", "COLSxROWS"]`
 * before a frame whose terminal size changed. Seconds count from the session's start.
 */
export async function* asciicastLines({ session, pages }: Recording): AsyncGenerator<string> {
  const iterator = pages[Symbol.asyncIterator]();
  let page = (await iterator.next()).value as RecordedFrame[] | undefined;
  const first = page?.[0];
  const size = first && first.width > 0 && first.height > 0 ? first : defaultSize;
  const startedAt = session.startedAt.getTime();
  yield `${JSON.stringify({
    version: 2,
    width: size.width,
    height: size.height,
    timestamp: Math.floor(startedAt / 1000),
    title: `${session.username} · session ${session.uid.slice(0, 8)}`,
    env: { TERM: session.term || "xterm" },
  })}\n`;
  let previous = { width: size.width, height: size.height };
  while (page) {
    const lines: string[] = [];
    for (const frame of page) {
      const seconds = Math.max(0, (frame.time.getTime() - startedAt) / 1000);
      const resized = frame.width > 0 && frame.height > 0;
      if (resized && (frame.width !== previous.width || frame.height !== previous.height)) {
        previous = { width: frame.width, height: frame.height };
        lines.push(JSON.stringify([seconds, "r", `${frame.width}x${frame.height}`]));
      }
      lines.push(JSON.stringify([seconds, "o", frame.message]));
    }
    yield `${lines.join("\n")}\n`;
    page = (await iterator.next()).value as RecordedFrame[] | undefined;
  }
}
