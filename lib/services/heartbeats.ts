import { type SQL, sql } from "drizzle-orm";
import { nextStep } from "../batch";
import { type Db, executePrepared, prepared } from "../db";
import { isDeadlock } from "../errors";
import { log } from "../log";
import { maxCachedDevices, processSingleton, setInCache } from "../process-state";
import { amongUids, announceOnline, type SeenDevice } from "./presence";

export type Heartbeat = {
  uid: string;
  tenantId: string;
  remoteAddr: string;
  info: Record<string, string>;
  /** Sessions the agent says are alive on the device. */
  sessions: string[];
  /** Whether the call proved it holds the device key (lib/services/device-proof.ts). */
  proven: boolean;
};

/** `last_seen` only for the devices the batch brought online: the others' is not needed, and a date parsed per row was 3% of the server's time at full load. */
type Row = { uid: string; name: string; tenant_id: string; last_seen: string | Date | null };

/**
 * The batch statement, its parameters the batch as JSON and its uids (sorted): the uids let
 * PostgreSQL find the rows through the primary key in uid order, where the JSON alone (a function
 * it guesses at 100 rows) had it scan the whole table for every batch. `allowed` are the devices
 * the call may act for; each gets `last_seen` in its narrow presence row, and its `devices` row is
 * written only when something there changes: it comes online, or its address, its information or
 * its first proof is new (models/device-presence.ts). The sessions each agent lists are touched
 * only when they belong to that device in that namespace. Most batches list no session; theirs is
 * the statement without them.
 */
const heartbeatStatement = (touchSessions: SQL) =>
  prepared(sql`
  with beats as (
    select * from jsonb_to_recordset(${sql.placeholder("rows")}::jsonb)
      as beat(uid text, tenant_id uuid, remote_addr text, info jsonb, sessions jsonb, proven boolean)
  ), allowed as (
    select devices.uid, devices.name, devices.tenant_id, devices.online as was_online,
      beats.remote_addr, beats.info, beats.proven,
      not devices.online or devices.remote_addr <> beats.remote_addr or devices.info <> beats.info
        or beats.proven and devices.key_proven_at is null as is_changed
    from beats join devices on devices.uid = beats.uid
    where ${amongUids(sql`devices.uid`, sql.placeholder("uids"))} and devices.tenant_id = beats.tenant_id
      and (beats.proven or devices.key_proven_at is null and (devices.status = 'pending' or exists (
        select from namespaces
        where namespaces.tenant_id = devices.tenant_id and namespaces.allow_unsigned_agents)))
  ), seen as (
    update device_presence set last_seen = now() from allowed
    where device_presence.uid = allowed.uid
    returning device_presence.uid, device_presence.last_seen, allowed.name, allowed.tenant_id, allowed.was_online
  ), changed as (
    update devices set online = true, remote_addr = allowed.remote_addr, info = allowed.info,
      key_proven_at = coalesce(devices.key_proven_at, case when allowed.proven then now() end)
    from allowed where allowed.is_changed and devices.uid = allowed.uid
  )${touchSessions}
  select uid, name, tenant_id, case when was_online then null else last_seen end as last_seen from seen`);

const withoutSessions = heartbeatStatement(sql``);
const withSessions = heartbeatStatement(sql`, touched_sessions as (
    update sessions set last_seen = now()
    from allowed join beats on beats.uid = allowed.uid,
      jsonb_array_elements_text(beats.sessions) as listed(uid)
    where sessions.uid = listed.uid and sessions.device_uid = allowed.uid
      and sessions.tenant_id = allowed.tenant_id and sessions.active
  )`);

/**
 * The statement of a batch's steady heartbeats, those that change nothing in the device's row: it
 * stamps `last_seen` of the devices still online and reads their name and address. A device it
 * does not find online (offline since, deleted), or whose address another writer changed, goes
 * through heartbeatStatement in the same write. About two-thirds of the whole statement's work
 * on the embedded database: no batch JSON, no check of who may act (the device's key was proven
 * when its row was written), no update of `devices` to plan (docs/performance.md).
 */
const stampStatement = prepared(sql`
  update device_presence set last_seen = now() from devices
  where ${amongUids(sql`device_presence.uid`, sql.placeholder("uids"))} and devices.uid = device_presence.uid
    and devices.online
  returning device_presence.uid, devices.name, devices.remote_addr`);

type StampedRow = { uid: string; name: string; remote_addr: string };

/** What heartbeatStatement last wrote into a device's row for a call that proved its key. */
type Written = { tenantId: string; remoteAddr: string; info: Record<string, string> };

/** The same keys and values: checked for each steady heartbeat, so without an array of keys. */
function isSameInfo(a: Record<string, string>, b: Record<string, string>): boolean {
  let count = 0;
  for (const key in a) {
    if (a[key] !== b[key]) return false;
    count += 1;
  }
  for (const _ in b) count -= 1;
  return count === 0;
}

type Waiting = { beat: Heartbeat; resolve: (name: string | undefined) => void; reject: (error: unknown) => void };

const maxBatch = 5_000;
const byUid = (a: Heartbeat, b: Heartbeat) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
/**
 * Group commit for agent heartbeats. Heartbeats that arrive while a write runs wait for the
 * next one, which writes them all in one statement (two when some are steady: stampStatement);
 * each is answered once the statement holding it has committed, so a crash never loses an
 * acknowledged heartbeat. With no backlog a
 * heartbeat is written at once: batching adds no delay, only fewer statements under load.
 */
export class HeartbeatWriter {
  private queue: Waiting[] = [];
  // One write in flight, on both databases: everything that arrives meanwhile waits for the next
  // batch. A second write in flight (overlapping the first one's commit) answered 10% fewer
  // heartbeats at 64 connections on PostgreSQL: two smaller batches cost the server and the
  // database more than the overlap saved (docs/performance.md).
  private isWriting = false;
  /** Totals since start, logged at shutdown: statements per heartbeat is what batching saves. */
  readonly totals = { heartbeats: 0, statements: 0 };
  /** By device uid: what this writer last wrote into its row, so a heartbeat that repeats it only stamps. */
  private readonly written = new Map<string, Written>();

  constructor(private readonly db: Db) {}

  /**
   * Records a heartbeat; resolves to the device's name, or undefined when there is no such device
   * or the call may not act for it: an unproven call only for a device whose agent never proved
   * its key, and only while it is pending or its namespace allows unsigned agents.
   */
  record(beat: Heartbeat): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ beat, resolve, reject });
      this.totals.heartbeats += 1;
      if (!this.isWriting) void this.drain();
    });
  }

  private async drain() {
    this.isWriting = true;
    while (this.queue.length > 0) {
      // Let the requests read in the same step of the event loop reach the queue, so that a batch
      // after a pause holds them all rather than the first alone.
      await nextStep();
      const batch = this.queue.splice(0, maxBatch);
      try {
        const names = await this.writeRetryingDeadlocks(batch.map((waiting) => waiting.beat));
        for (const waiting of batch) waiting.resolve(names.get(waiting.beat.uid));
      } catch (error) {
        log.warn("heartbeat write failed", { error: String(error), heartbeats: batch.length });
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.isWriting = false;
  }

  /**
   * Rows are written in uid order: found through the primary key they are locked in that order,
   * found by a scan in the table's order, and the batches of two instances, planned alike, never
   * lock the rows they share crosswise. A deadlock with other work on the same rows (which PostgreSQL
   * breaks by aborting one statement) costs a retry, not the batch's heartbeats.
   */
  private async writeRetryingDeadlocks(beats: Heartbeat[]): Promise<Map<string, string>> {
    const sorted = beats.toSorted(byUid);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(sorted);
      } catch (error) {
        if (!isDeadlock(error) || attempt === 3) throw error;
        log.info("heartbeat write retried after a deadlock", { heartbeats: beats.length, attempt });
      }
    }
  }

  /**
   * The batch's steady heartbeats (stampStatement), then the others and those the stamp did not
   * take (heartbeatStatement). `beats` are in uid order, and so is each statement's part.
   */
  private async write(beats: Heartbeat[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const steady: Heartbeat[] = [];
    let whole: Heartbeat[] = [];
    for (const beat of beats) (this.isSteady(beat) ? steady : whole).push(beat);
    if (steady.length > 0) {
      this.totals.statements += 1;
      const stamped = await executePrepared<StampedRow>(this.db, stampStatement, {
        uids: steady.map((beat) => beat.uid),
      });
      const rows = new Map(stamped.map((row) => [row.uid, row]));
      const untaken: Heartbeat[] = [];
      for (const beat of steady) {
        const row = rows.get(beat.uid);
        if (row && row.remote_addr === beat.remoteAddr) names.set(beat.uid, row.name);
        else untaken.push(beat);
      }
      if (untaken.length > 0) whole = [...whole, ...untaken].sort(byUid);
    }
    if (whole.length > 0) {
      for (const [uid, name] of await this.writeWhole(whole)) names.set(uid, name);
    }
    return names;
  }

  /** Whether a heartbeat would write into the device's row only what this writer wrote there last. */
  private isSteady(beat: Heartbeat): boolean {
    const written = this.written.get(beat.uid);
    return (
      written !== undefined &&
      beat.proven &&
      beat.sessions.length === 0 &&
      written.tenantId === beat.tenantId &&
      written.remoteAddr === beat.remoteAddr &&
      isSameInfo(written.info, beat.info)
    );
  }

  /** One prepared statement (heartbeatStatement) for the heartbeats. */
  private async writeWhole(beats: Heartbeat[]): Promise<Map<string, string>> {
    const listsSessions = beats.some((beat) => beat.sessions.length > 0);
    const rows = beats.map((beat) => ({
      uid: beat.uid,
      tenant_id: beat.tenantId,
      remote_addr: beat.remoteAddr,
      info: beat.info,
      sessions: listsSessions ? beat.sessions : undefined,
      proven: beat.proven,
    }));
    this.totals.statements += 1;
    const uids = beats.map((beat) => beat.uid);
    const updated = await executePrepared<Row>(this.db, listsSessions ? withSessions : withoutSessions, {
      rows: JSON.stringify(rows),
      uids,
    });
    // Devices this heartbeat brought back online (not those it keeps online): the live streams hear of them.
    const cameOnline = updated.filter((row): row is SeenDevice & Row => row.last_seen !== null);
    if (cameOnline.length > 0) {
      void announceOnline(this.db, cameOnline, "heartbeat");
    }
    const names = new Map(updated.map((row) => [row.uid, row.name]));
    for (const beat of beats) {
      if (beat.proven && names.has(beat.uid)) {
        const written = { tenantId: beat.tenantId, remoteAddr: beat.remoteAddr, info: beat.info };
        setInCache(this.written, beat.uid, written, maxCachedDevices);
      } else {
        this.written.delete(beat.uid);
      }
    }
    return names;
  }
}

/** The heartbeat writer of a database handle: one per process, whichever module copy asks. */
export function heartbeatWriter(db: Db): HeartbeatWriter {
  const writers = processSingleton("heartbeat writers", () => new WeakMap<Db, HeartbeatWriter>());
  let writer = writers.get(db);
  if (!writer) {
    writer = new HeartbeatWriter(db);
    writers.set(db, writer);
  }
  return writer;
}
