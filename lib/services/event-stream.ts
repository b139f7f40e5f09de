import { and, eq } from "drizzle-orm";
import { members } from "@/models/namespaces";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { processSingleton } from "../process-state";
import { changesStats, hub, type LiveEvent, replayEvents } from "./events";
import { getStats } from "./stats";

/**
 * What a stream sends, each as an SSE event: `id`, `event` (the type) and the JSON `data`
 * `{type, uid, at, patch}`. Besides the namespace's events: `stats` (the object of
 * `GET /api/stats`, with the id of the last event it accounts for) and `reset` (refetch
 * everything; its id is where to continue from).
 */
export type StreamMessage = {
  id: number;
  event: string;
  data: { type: string; uid: string; at: string; patch: Record<string, unknown> };
};

export type StreamSink = {
  send: (message: StreamMessage) => void;
  /** The stream ends (membership gone, lifetime over): the client reconnects and is checked again. */
  end: () => void;
};

const message = (id: number, type: string, uid: string, at: Date, patch: Record<string, unknown>): StreamMessage => ({
  id,
  event: type,
  data: { type, uid, at: at.toISOString(), patch },
});

/** At most one stats message per stream this often, after the changes that may alter them. */
const statsEveryMs = 2_000;
/** How often the caller's membership is checked again while the stream is open. */
const membershipEveryMs = 60_000;
/** A stream ends after this long; the client reconnects with Last-Event-ID and its credential is checked anew. */
const lifetimeMs = 15 * 60_000;

/** `Last-Event-ID`: a non-negative integer, else undefined (no replay) or NaN (a reset). */
function parseLastEventId(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  return /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : Number.NaN;
}

/**
 * The namespace's stats, computed at most once a second per namespace in this process, however
 * many streams ask.
 */
function sharedStats(db: Executor, scope: Scope) {
  const cache = processSingleton(
    "stream stats",
    () => new Map<string, { at: number; value: ReturnType<typeof getStats> }>(),
  );
  const cached = cache.get(scope.tenantId);
  if (cached && Date.now() - cached.at < 1_000) return cached.value;
  const value = getStats(db, scope);
  cache.set(scope.tenantId, { at: Date.now(), value });
  value.catch(() => cache.delete(scope.tenantId));
  return value;
}

async function isStillMember(db: Executor, scope: Scope) {
  const [row] = await db
    .select({ status: members.status })
    .from(members)
    .where(and(eq(members.tenantId, scope.tenantId), eq(members.userId, scope.actorId)));
  return row?.status === "accepted";
}

/**
 * One client's stream of the namespace's events: with `Last-Event-ID`, first the events it
 * missed (or a reset), then the live ones, none twice and none lost between the two; a `stats`
 * message after changes that may alter them (at most one per 2 s). Returns the function that
 * closes it.
 */
export async function openEventStream(
  db: Executor,
  scope: Scope,
  lastEventIdHeader: string | null,
  sink: StreamSink,
): Promise<() => void> {
  let lastSent = 0;
  let isLive = false;
  let isClosed = false;
  const early: LiveEvent[] = [];
  let statsTimer: NodeJS.Timeout | undefined;
  let lastStatsAt = 0;

  const sendStats = () => {
    statsTimer = undefined;
    if (isClosed) return;
    lastStatsAt = Date.now();
    const id = lastSent;
    sharedStats(db, scope)
      .then((stats) => {
        if (!isClosed) sink.send(message(id, "stats", scope.tenantId, new Date(), stats));
      })
      .catch((error: unknown) => log.warn("stats for the event stream failed", { error: errorText(error) }));
  };
  const scheduleStats = () => {
    if (statsTimer || isClosed) return;
    statsTimer = setTimeout(sendStats, Math.max(100, lastStatsAt + statsEveryMs - Date.now()));
  };
  const deliver = (event: LiveEvent) => {
    if (event.id <= lastSent) return;
    lastSent = event.id;
    sink.send(message(event.id, event.type, event.uid, event.at, event.patch));
    if (changesStats(event.type)) scheduleStats();
  };

  // Listen first, then read the history: what arrives meanwhile waits, and is sent after the
  // history unless the history had it.
  const unsubscribe = hub().subscribe(scope.tenantId, (event) => {
    if (isLive) deliver(event);
    else early.push(event);
  });
  const timers: NodeJS.Timeout[] = [];
  const close = () => {
    if (isClosed) return;
    isClosed = true;
    unsubscribe();
    clearTimeout(statsTimer);
    for (const timer of timers) clearTimeout(timer);
  };
  const end = () => {
    close();
    sink.end();
  };
  const checkMembership = () => {
    isStillMember(db, scope)
      .then((isMember) => {
        if (!isMember) end();
      })
      .catch((error: unknown) => log.warn("checking a stream's membership failed", { error: errorText(error) }));
  };
  timers.push(setInterval(checkMembership, membershipEveryMs), setTimeout(end, lifetimeMs));

  try {
    const lastId = parseLastEventId(lastEventIdHeader);
    if (lastId !== undefined) {
      // An id that is no number is no id of this database: past the last one, it gets a reset.
      const replay = await replayEvents(db, scope.tenantId, Number.isNaN(lastId) ? Number.MAX_SAFE_INTEGER : lastId);
      if (replay.kind === "reset") {
        lastSent = replay.lastId;
        sink.send(message(replay.lastId, "reset", scope.tenantId, new Date(), {}));
        scheduleStats();
      } else {
        lastSent = lastId;
        for (const event of replay.events) deliver(event);
      }
    }
    isLive = true;
    for (const event of early.splice(0)) deliver(event);
  } catch (error) {
    close();
    throw error;
  }
  return close;
}
