import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, gte, lt, max, min, sql } from "drizzle-orm";
import { deviceTransitions } from "@/models/device-transitions";
import { events } from "@/models/events";
import { type AuditRecord, recordAudits, systemActor } from "../audit/trail";
import { type Executor, isEmbedded, writeTogether } from "../db";
import { insertRows } from "../db/insert-rows";
import { errorText } from "../errors";
import { log } from "../log";
import { processSingleton } from "../process-state";
import type { eventTypes } from "../schemas/events";
import { enqueueWebhookEvents, type WebhookEvent } from "../webhooks/outbox";
import { forgetSteadyDevices } from "./steady-devices";

/**
 * The live events of a namespace (`GET /api/events`, docs/live-status.md): what changed on a
 * device or a session, with the changed fields as the API shows them. Every instance writes its
 * events into the `events` table and reads everyone's from it, in id order; a PostgreSQL
 * notification (or, on the embedded database, the writer itself) says when to read.
 */
export type EventType = (typeof eventTypes)[number];

/** The events after which the namespace's stats (`GET /api/stats`) may differ. */
export const changesStats = (type: string) => type !== "device.updated";

export type NewEvent = {
  tenantId: string;
  type: EventType;
  uid: string;
  patch: Record<string, unknown>;
  /** Why a device went online or offline (or was registered), kept in its transitions, not shown in the stream. */
  cause?: string;
};
export type LiveEvent = Omit<NewEvent, "cause"> & { id: number; at: Date };

/** The PostgreSQL channel on which writers say that events were written. */
export const eventChannel = "device_access_events";
// Held (per transaction) by every event write: ids are then taken, and committed, in order.
const writeLockKey = 7261042;
const maxBatch = 500;

type Waiting = { event: NewEvent; done: () => void };

/**
 * An event that says why a device went online or offline as one row of its transitions: its
 * `device.online` and `device.offline` events, and its registration (a device is born online).
 */
function transitionOf(event: NewEvent) {
  if (event.cause === undefined) return [];
  const online = event.type === "device.online" || (event.type === "device.registered" && event.patch.online === true);
  return [{ deviceUid: event.uid, tenantId: event.tenantId, online, cause: event.cause }];
}

/**
 * The audit row of a device's online/offline change (or its registration, a device being born
 * online): observed by the system, with its cause. Plain heartbeats change nothing and write none.
 */
function auditOf(event: NewEvent): AuditRecord[] {
  if (event.cause === undefined) return [];
  const action =
    event.type === "device.registered"
      ? "device.register"
      : event.type === "device.online"
        ? "device.online"
        : "device.offline";
  return [
    {
      tenantId: event.tenantId,
      actor: systemActor,
      source: "",
      action,
      target: { type: "device", id: event.uid },
      details: { cause: event.cause },
    },
  ];
}

/** The webhook event a live event is, if any (docs/webhooks.md): a status change names the new status. */
function webhookEventOf(event: NewEvent): WebhookEvent[] {
  const of = (type: WebhookEvent["type"]) => [
    { tenantId: event.tenantId, type, uid: event.uid, data: { uid: event.uid, ...event.patch } },
  ];
  switch (event.type) {
    case "device.registered":
    case "device.online":
    case "device.offline":
    case "device.removed":
    case "session.started":
    case "session.ended":
      return of(event.type);
    case "device.status": {
      const status = event.patch.status;
      if (status === "accepted" || status === "rejected" || status === "removed") return of(`device.${status}`);
      return [];
    }
    default:
      return [];
  }
}

/**
 * Writes events one transaction at a time, each transaction all the events queued meanwhile.
 * The transaction holds an advisory lock from before its ids are taken until its commit, so ids
 * become visible in order on every instance: a reader that saw id N missed nothing below it.
 * The embedded database runs one transaction at a time and has one instance: no lock there, and
 * no notification (the writer pokes its own reader).
 */
class EventWriter {
  private queue: Waiting[] = [];
  private isWriting = false;
  /** Other instances may write and read events: the lock orders ids, the notification wakes them. */
  private readonly isShared: boolean;

  constructor(private readonly db: Executor) {
    this.isShared = !isEmbedded(db);
  }

  write(batch: NewEvent[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      let left = batch.length;
      const done = () => {
        left -= 1;
        if (left === 0) resolve();
      };
      for (const event of batch) this.queue.push({ event, done });
      if (!this.isWriting) void this.drain();
    });
  }

  private async drain() {
    this.isWriting = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, maxBatch);
      try {
        await this.db.transaction(async (tx) => {
          if (this.isShared) await tx.execute(sql`select pg_advisory_xact_lock(${writeLockKey})`);
          await writeTogether(tx, [
            () =>
              insertRows(
                tx,
                events,
                batch.map(({ event }) => ({
                  tenantId: event.tenantId,
                  type: event.type,
                  subject: event.uid,
                  patch: event.patch,
                })),
                // The time of the write, under the lock: times rise with ids.
                { at: sql`clock_timestamp()` },
              ),
            () =>
              insertRows(
                tx,
                deviceTransitions,
                batch.flatMap(({ event }) => transitionOf(event)),
                { at: sql`clock_timestamp()` },
              ),
            () =>
              recordAudits(
                tx,
                batch.flatMap(({ event }) => auditOf(event)),
              ),
            () =>
              enqueueWebhookEvents(
                tx,
                batch.flatMap(({ event }) => webhookEventOf(event)),
              ),
          ]);
          if (this.isShared) await tx.execute(sql`select pg_notify(${eventChannel}, ${hub().token})`);
        });
      } catch (error) {
        // The change itself is done; only its announcement is lost (clients see it when they refetch).
        log.warn("writing events failed", { events: batch.length, error: errorText(error) });
      }
      for (const waiting of batch) waiting.done();
      hub().poke();
    }
    this.isWriting = false;
  }
}

/**
 * Changes after which a device's next heartbeat through this process goes to the database, for
 * its answer to carry them (a new name; a removed device registers anew) and for a device taken
 * offline to come back: a steady heartbeat is answered from memory (lib/services/steady-devices.ts).
 */
const changesDevice = new Set<EventType>(["device.offline", "device.status", "device.updated", "device.removed"]);

/**
 * Announces changes to the namespaces' live streams. Never fails: a change that was made stays
 * made when its event cannot be written (logged). Resolves once the events are written, so
 * that a caller who awaits it answers only after its events are readable. Pass the database
 * handle, not a transaction: the write happens after the change committed.
 */
export function publishEvents(db: Executor, batch: NewEvent[]): Promise<void> {
  forgetSteadyDevices(batch.filter((event) => changesDevice.has(event.type)).map((event) => event.uid));
  const writers = processSingleton("event writers", () => new WeakMap<Executor, EventWriter>());
  let writer = writers.get(db);
  if (!writer) {
    writer = new EventWriter(db);
    writers.set(db, writer);
  }
  return writer.write(batch);
}

type Listener = (event: LiveEvent) => void;

const toLiveEvent = (row: typeof events.$inferSelect): LiveEvent => ({
  id: row.id,
  tenantId: row.tenantId,
  type: row.type as EventType,
  uid: row.subject,
  at: row.at,
  patch: row.patch,
});

/**
 * The process's reader of the events table: reads the rows after the last one it handed out,
 * in id order, and hands each to the listeners of its namespace (and to those of all). One
 * read at a time; a poke during a read makes one more.
 */
class EventHub {
  /** Names this process in its notifications, so it does not read again on its own. */
  readonly token = randomBytes(8).toString("hex");
  private db: Executor | undefined;
  private cursor = 0;
  private reading: Promise<void> | undefined;
  private isAgain = false;
  private readonly byTenant = new Map<string, Set<Listener>>();
  private readonly everyTenant = new Set<Listener>();

  /** Starts handing out the events written from now on. */
  async start(db: Executor) {
    const [row] = await db.select({ last: max(events.id) }).from(events);
    this.cursor = row?.last ?? 0;
    this.db = db;
  }

  stop() {
    this.db = undefined;
  }

  /** A notification: another instance wrote events. */
  notified(payload: string) {
    if (payload !== this.token) this.poke();
  }

  /** Reads what was written since the last read (no-op until started). */
  poke() {
    if (!this.db) return;
    if (this.reading) {
      this.isAgain = true;
      return;
    }
    this.reading = this.readAll().finally(() => {
      this.reading = undefined;
      if (this.isAgain) {
        this.isAgain = false;
        this.poke();
      }
    });
  }

  private async readAll() {
    const db = this.db;
    if (!db) return;
    try {
      for (;;) {
        const rows = await db
          .select()
          .from(events)
          .where(gt(events.id, this.cursor))
          .orderBy(asc(events.id))
          .limit(500);
        for (const row of rows) this.dispatch(toLiveEvent(row));
        const last = rows.at(-1);
        if (last) this.cursor = last.id;
        if (rows.length < 500) return;
      }
    } catch (error) {
      log.warn("reading events failed", { error: errorText(error) });
    }
  }

  private dispatch(event: LiveEvent) {
    const listeners = [...(this.byTenant.get(event.tenantId) ?? []), ...this.everyTenant];
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        log.warn("an event listener failed", { type: event.type, error: errorText(error) });
      }
    }
  }

  /** Listens to one namespace's events; returns the function that stops listening. */
  subscribe(tenantId: string, listener: Listener): () => void {
    let listeners = this.byTenant.get(tenantId);
    if (!listeners) {
      listeners = new Set();
      this.byTenant.set(tenantId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.byTenant.get(tenantId) === listeners) this.byTenant.delete(tenantId);
    };
  }

  /** Listens to every namespace's events (the server's own parts: the tunnel registry). */
  subscribeAll(listener: Listener): () => void {
    this.everyTenant.add(listener);
    return () => this.everyTenant.delete(listener);
  }

  /** How many listeners this process has, for the log. */
  get listenerCount() {
    let count = this.everyTenant.size;
    for (const listeners of this.byTenant.values()) count += listeners.size;
    return count;
  }
}

/** The process's event hub (one, whichever module copy asks: route handlers and server.ts share it). */
export const hub = () => processSingleton("event hub", () => new EventHub());

/** How long the history keeps events: a client that was away longer gets a reset. */
export const eventRetentionSeconds = 600;

/** How many events one reconnecting client may be sent; past that it is told to refetch. */
export const maxReplay = 1_000;

export type Replay = { kind: "events"; events: LiveEvent[] } | { kind: "reset"; lastId: number };

/**
 * The namespace's events after `lastId`, for a client that reconnects: a reset (refetch
 * everything, continue from `lastId` returned) when some of them may be gone already (older than
 * the history keeps), when `lastId` is no id of this database, or when there are too many.
 */
export async function replayEvents(db: Executor, tenantId: string, lastId: number): Promise<Replay> {
  const [bounds] = await db.select({ first: min(events.id), last: max(events.id) }).from(events);
  const first = bounds?.first ?? undefined;
  const last = bounds?.last ?? 0;
  // Rows are purged oldest first and the newest is always kept (unscopedPurgeEvents): ids below
  // the first one left may have been this namespace's.
  if (first === undefined || lastId + 1 < first || lastId > last) return { kind: "reset", lastId: last };
  const rows = await db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), gt(events.id, lastId)))
    .orderBy(asc(events.id))
    .limit(maxReplay + 1);
  if (rows.length > maxReplay) return { kind: "reset", lastId: last };
  return { kind: "events", events: rows.map(toLiveEvent) };
}

/**
 * Forgets events older than `retentionSeconds`: every row below the first recent one, and always
 * keeps the newest, so the history is one run of ids whose first tells what is gone. Runs on a
 * timer, across namespaces.
 */
export async function unscopedPurgeEvents(db: Executor, retentionSeconds: number): Promise<number> {
  const firstRecent = db
    .select({ id: min(events.id) })
    .from(events)
    .where(gte(events.at, sql`now() - make_interval(secs => ${retentionSeconds})`));
  const newest = db.select({ id: max(events.id) }).from(events);
  const purged = await db
    .delete(events)
    .where(lt(events.id, sql`coalesce((${firstRecent}), (${newest}))`))
    .returning({ id: events.id });
  return purged.length;
}
