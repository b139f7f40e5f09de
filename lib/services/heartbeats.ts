import { type SQL, sql } from "drizzle-orm";
import { nextStep } from "../batch";
import { getConfig } from "../config";
import { type Db, executePrepared, prepared } from "../db";
import { isDeadlock } from "../errors";
import { log } from "../log";
import { processSingleton } from "../process-state";
import { amongUids, announceOnline, type SeenDevice } from "./presence";
import {
  forgetAllSteadyDevices,
  forgetSteadyDevices,
  type SteadyDevice,
  setSteadyDevice,
  steadyDevice,
} from "./steady-devices";

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
 * The statement of the steady heartbeats of the last moment (see HeartbeatWriter): it stamps
 * `last_seen` of those devices still online and reads their name and address. A device it does
 * not find online (offline since, deleted), or whose address another writer changed, is forgotten
 * as steady: its next heartbeat goes through heartbeatStatement. No batch JSON, no check of who
 * may act (the device's key was proven when its row was written), no update of `devices` to plan.
 */
const stampStatement = prepared(sql`
  update device_presence set last_seen = now() from devices
  where ${amongUids(sql`device_presence.uid`, sql.placeholder("uids"))} and devices.uid = device_presence.uid
    and devices.online
  returning device_presence.uid, devices.name, devices.remote_addr`);

type StampedRow = { uid: string; name: string; remote_addr: string };

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

export type HeartbeatTiming = {
  /** How often the steady heartbeats of the last moment are stamped, in one statement. */
  stampEveryMs: number;
  /** How recently the database must have shown a device online for its heartbeat to be steady. */
  confirmedWithinMs: number;
};

/** Stamps every second; a device steady for half the time after which silent devices go offline. */
const heartbeatTimingOf = (offlineSeconds: number): HeartbeatTiming => ({
  stampEveryMs: 1_000,
  confirmedWithinMs: (offlineSeconds * 1000) / 2,
});

const maxBatch = 5_000;
const byUid = (a: { uid: string }, b: { uid: string }) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

/**
 * Writes agent heartbeats, two ways.
 *
 * A steady heartbeat (its device online, its row holding what the heartbeat would write, the key
 * proven, no sessions listed: nearly every one) is answered at once from memory, and its
 * `last_seen` stamped within `stampEveryMs`, with every other steady heartbeat of that moment, in
 * one statement (stampStatement). A crash loses at most that moment's stamps: the device's next
 * heartbeat comes long before it could be taken for silent.
 *
 * Any other heartbeat (the first after a start, a device coming online, a new address, new
 * information, a first proof, sessions listed) is group-committed: those that arrive while a write
 * runs wait for the next one, which writes them all in one statement (heartbeatStatement), and
 * each is answered once that statement has committed. With no backlog a heartbeat is written at
 * once: batching adds no delay, only fewer statements under load.
 */
export class HeartbeatWriter {
  private queue: Waiting[] = [];
  // One write in flight, on both databases: everything that arrives meanwhile waits for the next
  // batch. A second write in flight (overlapping the first one's commit) answered 10% fewer
  // heartbeats at 64 connections on PostgreSQL: two smaller batches cost the server and the
  // database more than the overlap saved (docs/performance.md).
  private isWriting = false;
  /** The write loop under way, or the last one. */
  private drained: Promise<void> = Promise.resolve();
  /**
   * The devices of the steady heartbeats answered and not stamped yet: their long-lived entries,
   * not the heartbeats, which then die young (kept for a second, they had the collector move
   * thousands a second to the old generation).
   */
  private readonly stamps = new Set<SteadyDevice>();
  private stampTimer: NodeJS.Timeout | undefined;
  private isStampTime = false;
  /** Totals since start, logged at shutdown: statements per heartbeat is what batching saves. */
  readonly totals = { heartbeats: 0, statements: 0 };

  constructor(
    private readonly db: Db,
    private readonly timing: HeartbeatTiming = heartbeatTimingOf(getConfig().DEVICE_OFFLINE_SECONDS),
  ) {}

  /**
   * Records a heartbeat and answers the device's name: at once for a steady heartbeat, otherwise
   * once written, undefined when there is no such device or the call may not act for it (an
   * unproven call only for a device whose agent never proved its key, and only while it is
   * pending or its namespace allows unsigned agents).
   */
  record(beat: Heartbeat): string | Promise<string | undefined> {
    this.totals.heartbeats += 1;
    const steady = this.steadyDeviceOf(beat);
    if (steady) {
      this.stamps.add(steady);
      this.scheduleStamps();
      return steady.name;
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ beat, resolve, reject });
      this.startDrain();
    });
  }

  /** Writes the stamps waiting now, and any write under way; for a server that stops. */
  async flush(): Promise<void> {
    this.isStampTime = this.stamps.size > 0;
    this.startDrain();
    await this.drained;
  }

  private steadyDeviceOf(beat: Heartbeat): SteadyDevice | undefined {
    const steady = steadyDevice(beat.uid);
    const isSteady =
      steady !== undefined &&
      beat.proven &&
      beat.sessions.length === 0 &&
      steady.tenantId === beat.tenantId &&
      steady.remoteAddr === beat.remoteAddr &&
      Date.now() - steady.confirmedAt < this.timing.confirmedWithinMs &&
      isSameInfo(steady.info, beat.info);
    return isSteady ? steady : undefined;
  }

  private scheduleStamps() {
    if (this.stamps.size >= maxBatch) {
      this.startDrain();
    } else if (!this.stampTimer) {
      this.stampTimer = setTimeout(() => {
        this.stampTimer = undefined;
        this.isStampTime = true;
        this.startDrain();
      }, this.timing.stampEveryMs).unref();
    }
  }

  private areStampsDue(): boolean {
    return this.stamps.size >= maxBatch || (this.isStampTime && this.stamps.size > 0);
  }

  /** Starts the write loop unless it runs: a running loop takes what is queued or due meanwhile. */
  private startDrain() {
    if (!this.isWriting) this.drained = this.drain();
  }

  /** Never fails: each write answers its own failure. */
  private async drain() {
    this.isWriting = true;
    while (this.queue.length > 0 || this.areStampsDue()) {
      // Let the requests read in the same step of the event loop reach the queue, so that a batch
      // after a pause holds them all rather than the first alone.
      await nextStep();
      // Due stamps go first: once a second at most, while a storm's heartbeats could fill every write.
      if (this.areStampsDue()) await this.writeStamps();
      else await this.writeQueued();
    }
    this.isWriting = false;
  }

  private async writeQueued() {
    const batch = this.queue.splice(0, maxBatch);
    try {
      const beats = batch.map((waiting) => waiting.beat).sort(byUid);
      const names = await this.retryingDeadlocks(beats.length, () => this.writeWhole(beats));
      for (const waiting of batch) waiting.resolve(names.get(waiting.beat.uid));
    } catch (error) {
      log.warn("heartbeat write failed", { error: String(error), heartbeats: batch.length });
      for (const waiting of batch) waiting.reject(error);
    }
  }

  /**
   * Stamps the steady heartbeats waiting (up to a batch), and keeps as steady the devices it finds
   * online at the same address, with their current name. When the write fails (the database away)
   * the stamps are lost and every device is forgotten as steady: heartbeats go through the
   * database again, and are answered as it answers them (503 while it is away).
   */
  private async writeStamps() {
    const devices: SteadyDevice[] = [];
    for (const device of this.stamps) {
      if (devices.length === maxBatch) break;
      devices.push(device);
      this.stamps.delete(device);
    }
    this.isStampTime = this.stamps.size > 0 && this.isStampTime;
    devices.sort(byUid);
    try {
      const uids = devices.map((device) => device.uid);
      const stamped = await this.retryingDeadlocks(devices.length, () => {
        this.totals.statements += 1;
        return executePrepared<StampedRow>(this.db, stampStatement, { uids });
      });
      const rows = new Map(stamped.map((row) => [row.uid, row]));
      const now = Date.now();
      for (const device of devices) {
        // Forgotten or written anew since: what took its place stands.
        if (steadyDevice(device.uid) !== device) continue;
        const row = rows.get(device.uid);
        if (!row || row.remote_addr !== device.remoteAddr) {
          forgetSteadyDevices([device.uid]);
        } else {
          device.name = row.name;
          device.confirmedAt = now;
        }
      }
    } catch (error) {
      log.warn("heartbeat stamps failed", { error: String(error), heartbeats: devices.length });
      forgetAllSteadyDevices();
    }
  }

  /**
   * Rows are written in uid order: found through the primary key they are locked in that order,
   * found by a scan in the table's order, and the batches of two instances, planned alike, never
   * lock the rows they share crosswise. A deadlock with other work on the same rows (which PostgreSQL
   * breaks by aborting one statement) costs a retry, not the batch's heartbeats.
   */
  private async retryingDeadlocks<T>(heartbeats: number, write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (!isDeadlock(error) || attempt === 3) throw error;
        log.info("heartbeat write retried after a deadlock", { heartbeats, attempt });
      }
    }
  }

  /** One prepared statement (heartbeatStatement) for the heartbeats, in uid order. */
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
    const now = Date.now();
    for (const beat of beats) {
      const name = names.get(beat.uid);
      if (beat.proven && name !== undefined) {
        const { uid, tenantId, remoteAddr, info } = beat;
        setSteadyDevice({ uid, tenantId, remoteAddr, info, name, confirmedAt: now });
      } else {
        forgetSteadyDevices([beat.uid]);
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
