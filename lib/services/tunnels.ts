import { and, eq, inArray, sql } from "drizzle-orm";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import { tunnels } from "@/models/tunnels";
import type { Executor } from "../db";
import { announceOffline } from "./agent";
import { publishEvents } from "./events";

/**
 * The devices that may hold a tunnel: accepted ones, and pending ones, whose tunnel waits
 * (carrying no session: the gateway serves only accepted devices) so that an accept makes the
 * device reachable at once (docs/live-status.md).
 */
const tunnelStatuses = ["accepted", "pending"] as const;
export type TunnelStatus = (typeof tunnelStatuses)[number];

const mayHoldTunnel = (status: string): status is TunnelStatus =>
  (tunnelStatuses as readonly string[]).includes(status);

/** The stored public key (PEM) and status of the device, when it may hold a tunnel in that namespace. */
export async function tunnelAdmission(
  db: Executor,
  uid: string,
  tenantId: string,
): Promise<{ publicKey: string; status: TunnelStatus } | undefined> {
  const [device] = await db
    .select({ status: devices.status, publicKey: devices.publicKey })
    .from(devices)
    .where(and(eq(devices.uid, uid), eq(devices.tenantId, tenantId)));
  return device && mayHoldTunnel(device.status) ? { publicKey: device.publicKey, status: device.status } : undefined;
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

type DeviceChange = { uid: string; tenant_id: string; last_seen: string | Date };

const rowsOf = (result: unknown) => (result as { rows: DeviceChange[] }).rows;

const offlineEvents = (db: Executor, changed: DeviceChange[]) =>
  announceOffline(
    db,
    changed.map((row) => ({ uid: row.uid, tenantId: row.tenant_id, lastSeen: new Date(row.last_seen) })),
    "tunnel closed",
  );

/** Keeps why the server refused or dropped a device's tunnel, for its diagnostics. */
export async function unscopedRecordTunnelError(db: Executor, deviceUid: string, message: string) {
  await db
    .update(devices)
    .set({ tunnelError: message.slice(0, 500), tunnelErrorAt: sql`now()` })
    .where(eq(devices.uid, deviceUid));
}

/**
 * Records `instance` as the holder of the device's tunnel, replacing any earlier holder; the
 * device is online (an event when it was not).
 */
export async function unscopedRecordTunnelOwner(
  db: Executor,
  deviceUid: string,
  instance: string,
  clockSkewMs: number | null = null,
) {
  const result = await db.execute(sql`
    with owner as (
      insert into ${tunnels} (device_uid, instance, clock_skew_ms) values (${deviceUid}, ${instance}, ${clockSkewMs})
      on conflict (device_uid) do update
        set instance = excluded.instance, connected_at = now(), clock_skew_ms = excluded.clock_skew_ms
      returning device_uid
    )
    update ${devices} set online = true, last_seen = now() from owner
    where ${devices.uid} = owner.device_uid and not ${devices.online}
    returning ${devices.uid}, ${devices.tenantId}, ${devices.lastSeen}`);
  const changed = rowsOf(result);
  await publishEvents(
    db,
    changed.map((row) => ({
      tenantId: row.tenant_id,
      type: "device.online" as const,
      uid: row.uid,
      patch: { online: true, last_seen: new Date(row.last_seen) },
      cause: "tunnel opened",
    })),
  );
}

/**
 * Forgets the device's row if `instance` still holds it (a newer holder keeps its row); the
 * device is then offline, unless another instance holds a tunnel of it.
 */
export async function unscopedForgetTunnelOwner(db: Executor, deviceUid: string, instance: string) {
  // The statement sees the rows as they were before its delete: "another holder" is a row of another instance.
  const result = await db.execute(sql`
    with gone as (
      delete from ${tunnels} where device_uid = ${deviceUid} and instance = ${instance} returning device_uid
    )
    update ${devices} set online = false from gone
    where ${devices.uid} = gone.device_uid and ${devices.online}
      and not exists (select from ${tunnels} where device_uid = gone.device_uid and instance <> ${instance})
    returning ${devices.uid}, ${devices.tenantId}, ${devices.lastSeen}`);
  await offlineEvents(db, rowsOf(result));
}

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
  for (let start = 0; start < gone.length; start += 5_000) {
    const uids = gone.slice(start, start + 5_000).map((row) => row.deviceUid);
    const offline = await db
      .update(devices)
      .set({ online: false })
      .where(
        and(
          inArray(devices.uid, uids),
          eq(devices.online, true),
          sql`not exists (select from ${tunnels} where ${tunnels.deviceUid} = ${devices.uid})`,
        ),
      )
      .returning({ uid: devices.uid, tenantId: devices.tenantId, lastSeen: devices.lastSeen });
    await announceOffline(db, offline, "the server holding its tunnel stopped");
  }
}

/**
 * The tunnels' heartbeat: the devices whose tunnels `instance` holds get `last_seen` now (and
 * `online`, with an event, should the silent-device timer have taken one offline), the active
 * sessions of those devices that have a channel open on them get `last_seen` now. One statement
 * per 5,000 devices, in uid order as the heartbeat writer locks them; a device whose newer tunnel
 * is on another instance is left to that instance.
 */
export async function unscopedRefreshTunnelLiveness(
  db: Executor,
  instance: string,
  deviceUids: string[],
  sessionUids: string[],
) {
  const sorted = deviceUids.toSorted();
  const sessionList = JSON.stringify(sessionUids);
  for (let start = 0; start < sorted.length; start += 5_000) {
    const chunk = JSON.stringify(sorted.slice(start, start + 5_000));
    const result = await db.execute(sql`
      with held as (
        select device_uid as uid from ${tunnels}
        where instance = ${instance} and device_uid in (select jsonb_array_elements_text(${chunk}::jsonb))
      ), seen as (
        update ${devices} set last_seen = now(), online = true
        from held join ${devices} as earlier on earlier.uid = held.uid
        where ${devices.uid} = held.uid
        returning ${devices.uid}, ${devices.tenantId}, ${devices.lastSeen}, earlier.online as was_online
      ), touched as (
        update ${sessions} set last_seen = now() from seen
        where ${sessions.deviceUid} = seen.uid and ${sessions.active}
          and ${sessions.uid} in (select jsonb_array_elements_text(${sessionList}::jsonb))
      )
      select uid, tenant_id, last_seen from seen where not was_online`);
    await publishEvents(
      db,
      rowsOf(result).map((row) => ({
        tenantId: row.tenant_id,
        type: "device.online" as const,
        uid: row.uid,
        patch: { online: true, last_seen: new Date(row.last_seen) },
        cause: "tunnel alive",
      })),
    );
  }
}

/** The instance that holds the device's tunnel, if any does. */
export async function unscopedTunnelOwner(db: Executor, deviceUid: string): Promise<string | undefined> {
  const [row] = await db.select({ instance: tunnels.instance }).from(tunnels).where(eq(tunnels.deviceUid, deviceUid));
  return row?.instance;
}
