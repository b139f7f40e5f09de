import { and, eq, inArray, sql } from "drizzle-orm";
import { devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import { tunnels } from "@/models/tunnels";
import { Batcher, inChunks } from "../batch";
import { type Executor, executePrepared } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { amongUids, announceOffline, announceOnline, type SeenDevice, seenNow, takeOffline } from "./presence";

/**
 * The devices that may hold a tunnel: accepted ones, and pending ones, whose tunnel waits
 * (carrying no session: the gateway serves only accepted devices) so that an accept makes the
 * device reachable at once (docs/live-status.md).
 */
const tunnelStatuses = ["accepted", "pending"] as const;
export type TunnelStatus = (typeof tunnelStatuses)[number];

const mayHoldTunnel = (status: string): status is TunnelStatus =>
  (tunnelStatuses as readonly string[]).includes(status);

export type AdmittedDevice = { publicKey: string; status: TunnelStatus };
type AdmissionQuery = { uid: string; tenantId: string };

/**
 * For each device asked about, its stored public key (PEM) and status when it may hold a tunnel
 * in that namespace: one statement for all.
 */
export async function tunnelAdmissions(db: Executor, asked: AdmissionQuery[]): Promise<(AdmittedDevice | undefined)[]> {
  const uids = [...new Set(asked.map((query) => query.uid))];
  const rows = await executePrepared<{ uid: string; tenant_id: string; status: string; public_key: string }>(
    db,
    sql`select ${devices.uid}, ${devices.tenantId}, ${devices.status}, ${devices.publicKey} from ${devices}
      where ${amongUids(devices.uid, uids)}`,
  );
  const found = new Map(rows.map((row) => [row.uid, row]));
  return asked.map(({ uid, tenantId }) => {
    const device = found.get(uid);
    return device && device.tenant_id === tenantId && mayHoldTunnel(device.status)
      ? { publicKey: device.public_key, status: device.status }
      : undefined;
  });
}

/**
 * The most tunnels one statement looks up or records: a fleet reconnecting after a restart
 * queues thousands while a statement runs, and the embedded database runs one statement at a
 * time: every request's statements wait behind one that grows with its rows (see devicesPerStatement).
 */
const tunnelBatchMax = 250;

/**
 * tunnelAdmissions for tunnels one at a time, batched (Batcher): a fleet reconnecting at once
 * is looked up in a few statements, not one per tunnel.
 */
export function tunnelAdmissionReader(db: Executor) {
  const batcher = new Batcher((asked: AdmissionQuery[]) => tunnelAdmissions(db, asked), tunnelBatchMax);
  return (uid: string, tenantId: string) => batcher.submit({ uid, tenantId });
}

/**
 * Which of these devices may still hold a tunnel (in whatever namespace): a tunnel of any other
 * is dropped. Unscoped: the tunnel registry holds devices of every namespace.
 */
export async function unscopedTunnelAdmittedDevices(db: Executor, uids: string[]): Promise<Set<string>> {
  const admitted = await db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(inArray(devices.uid, uids), inArray(devices.status, [...tunnelStatuses])));
  return new Set(admitted.map((row) => row.uid));
}

// Ownership rows: which instance holds a device's tunnel. The device uid alone names a row,
// hence unscoped. A device whose agent holds a tunnel is online; one whose tunnel closes, with
// no newer one anywhere, is offline at once (docs/live-status.md): each statement below changes
// the row and the device's `online` together, and the live streams hear of a change.

/** Keeps why the server refused or dropped a device's tunnel, for its diagnostics. */
export async function unscopedRecordTunnelError(db: Executor, deviceUid: string, message: string) {
  await db
    .update(devices)
    .set({ tunnelError: message.slice(0, 500), tunnelErrorAt: sql`now()` })
    .where(eq(devices.uid, deviceUid));
}

export type TunnelOpened = { uid: string; clockSkewMs: number | null };

/**
 * Records `instance` as the holder of these devices' tunnels, replacing any earlier holder; the
 * devices are online (an event for each that was not). One statement; rows in uid order, as
 * every batch writer of `devices` locks them.
 */
export async function unscopedRecordTunnelOwners(db: Executor, instance: string, opened: TunnelOpened[]) {
  const sorted = opened.toSorted((a, b) => (a.uid < b.uid ? -1 : 1));
  const uids = sorted.map((tunnel) => tunnel.uid);
  const changed = await executePrepared<SeenDevice>(
    db,
    sql`
    with owner as (
      insert into ${tunnels} (device_uid, instance, clock_skew_ms)
      select opened.uid, ${instance}, opened."clockSkewMs"
      from jsonb_to_recordset(${JSON.stringify(sorted)}::jsonb) as opened(uid text, "clockSkewMs" integer)
      where exists (select from ${devices} where ${amongUids(devices.uid, uids)} and ${devices.uid} = opened.uid)
      on conflict (device_uid) do update
        set instance = excluded.instance, connected_at = now(), clock_skew_ms = excluded.clock_skew_ms
      returning device_uid as uid
    ), ${seenNow(uids, sql`owner`)}
    select uid, tenant_id, last_seen from came_online`,
  );
  await announceOnline(db, changed, "tunnel opened");
}

/**
 * Forgets these devices' rows that `instance` still holds (a newer holder keeps its row); each
 * such device is then offline, unless another instance holds a tunnel of it.
 */
export async function unscopedForgetTunnelOwners(db: Executor, instance: string, uids: string[]) {
  // The statement sees the rows as they were before its delete: "another holder" is a row of another instance.
  const sorted = uids.toSorted();
  const offline = await executePrepared<SeenDevice>(
    db,
    sql`
    with gone as (
      delete from ${tunnels}
      where instance = ${instance} and ${amongUids(tunnels.deviceUid, sorted)}
      returning device_uid
    )
    update ${devices} set online = false from gone, ${devicePresence}
    where ${amongUids(devices.uid, sorted)} and ${devices.uid} = gone.device_uid and ${devices.online} and ${presenceOfDevice}
      and not exists (select from ${tunnels} where device_uid = gone.device_uid and instance <> ${instance})
    returning ${devices.uid}, ${devices.tenantId}, ${devicePresence.lastSeen}`,
  );
  await announceOffline(db, offline, "tunnel closed");
}

type OwnershipChange = { uid: string; opened?: TunnelOpened };

/**
 * This instance's ownership writes, in the order its tunnels came and went, batched (Batcher):
 * each device counts with its last change in a batch (a close queued after an open leaves the
 * device as the close does). A fleet reconnecting, or dropped at once, costs a few statements
 * instead of one per tunnel; batches run one at a time, so a device's changes never overtake each
 * other. A batch that fails (a device deleted meanwhile) is written again change by change, and a
 * change that fails is logged.
 */
export class TunnelOwnershipWriter {
  private readonly batcher: Batcher<OwnershipChange, void>;

  constructor(
    private readonly db: Executor,
    private readonly instance: () => string,
  ) {
    this.batcher = new Batcher<OwnershipChange, void>(async (changes) => {
      const latest = [...new Map(changes.map((change) => [change.uid, change])).values()];
      await this.write(latest).catch(async () => {
        for (const change of latest) await this.write([change]).catch((error: unknown) => logFailure(change, error));
      });
      return changes.map(() => undefined);
    }, tunnelBatchMax);
  }

  /** Changes queued or being written. */
  get backlog(): number {
    return this.batcher.backlog;
  }

  opened(uid: string, clockSkewMs: number | null) {
    void this.batcher.submit({ uid, opened: { uid, clockSkewMs } });
  }

  closed(uid: string) {
    void this.batcher.submit({ uid });
  }

  /** Resolves once every change queued so far is written. */
  settled() {
    return this.batcher.settled();
  }

  private async write(changes: OwnershipChange[]) {
    const opened = changes.flatMap((change) => (change.opened ? [change.opened] : []));
    const closed = changes.filter((change) => !change.opened).map((change) => change.uid);
    if (opened.length > 0) await unscopedRecordTunnelOwners(this.db, this.instance(), opened);
    if (closed.length > 0) await unscopedForgetTunnelOwners(this.db, this.instance(), closed);
  }
}

const logFailure = (change: OwnershipChange, error: unknown) =>
  log.warn(change.opened ? "recording the tunnel's owner failed" : "clearing the tunnel's owner failed", {
    device: change.uid,
    error: errorText(error),
  });

/**
 * Devices per statement of the work done for all of an instance's tunnels at once (the liveness
 * round, forgetting a stopped instance's rows), run with inChunks: the embedded database runs one
 * statement at a time, and 5,000 devices in one took 1.6 s, during which no request's statement ran.
 */
const devicesPerStatement = 500;

/**
 * Forgets the rows of one instance, or every row when `instance` is undefined; their devices are
 * offline (their tunnels are gone with the instance), unless their agents have reconnected to
 * another instance meanwhile.
 */
export async function unscopedForgetInstanceTunnels(db: Executor, instance: string | undefined) {
  const gone = await db
    .delete(tunnels)
    .where(instance === undefined ? undefined : eq(tunnels.instance, instance))
    .returning({ deviceUid: tunnels.deviceUid });
  await inChunks(gone, devicesPerStatement, async (chunk) => {
    const uids = chunk.map((row) => row.deviceUid);
    await takeOffline(
      db,
      and(
        inArray(devices.uid, uids),
        eq(devices.online, true),
        sql`not exists (select from ${tunnels} where ${tunnels.deviceUid} = ${devices.uid})`,
      ),
      "the server holding its tunnel stopped",
    );
  });
}

/**
 * The tunnels' heartbeat: the devices whose tunnels `instance` holds get `last_seen` now (and
 * `online`, with an event, should the silent-device timer have taken one offline), the active
 * sessions of those devices that have a channel open on them get `last_seen` now. One statement
 * per devicesPerStatement devices, in uid order as the heartbeat writer locks them; a device whose
 * newer tunnel is on another instance is left to that instance.
 */
export async function unscopedRefreshTunnelLiveness(
  db: Executor,
  instance: string,
  deviceUids: string[],
  sessionUids: string[],
) {
  const sorted = deviceUids.toSorted();
  await inChunks(sorted, devicesPerStatement, async (chunk) => {
    // Not prepared: run every 30 s for up to 500 devices, its plan made for the array at hand took
    // a third of the time of the generic plan a prepared statement settles on (docs/performance.md).
    const result = await db.execute(sql`
      with held as (
        select device_uid as uid from ${tunnels}
        where instance = ${instance} and ${amongUids(tunnels.deviceUid, chunk)}
      ), ${seenNow(chunk, sql`held`)}, touched as (
        update ${sessions} set last_seen = now() from seen
        where ${amongUids(sessions.uid, sessionUids)} and ${sessions.deviceUid} = seen.uid and ${sessions.active}
      )
      select uid, tenant_id, last_seen from came_online`);
    await announceOnline(db, (result as unknown as { rows: SeenDevice[] }).rows, "tunnel alive");
  });
}

/** The instance that holds the device's tunnel, if any does. */
export async function unscopedTunnelOwner(db: Executor, deviceUid: string): Promise<string | undefined> {
  const [row] = await db.select({ instance: tunnels.instance }).from(tunnels).where(eq(tunnels.deviceUid, deviceUid));
  return row?.instance;
}
