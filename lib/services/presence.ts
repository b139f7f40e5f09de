import { type AnyColumn, and, type Placeholder, type SQL, sql } from "drizzle-orm";
import { devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import type { Executor } from "../db";
import { publishEvents } from "./events";

/**
 * `uid = any(uids)`, the array as one parameter: PostgreSQL finds those rows through the primary
 * key. A set whose size it must guess instead (a CTE, a JSON function: 100 rows) had it scan the
 * whole table for every statement, 10,000 rows for a batch of 13 tunnels (docs/performance.md).
 * `uids` may be a placeholder, for a statement rendered once (`prepared`).
 */
export const amongUids = (column: SQL | AnyColumn, uids: string[] | Placeholder) =>
  sql`${column} = any(${Array.isArray(uids) ? sql.param(uids) : uids}::text[])`;

/**
 * Two CTEs for a statement that sees devices now: `seen` (uid, tenant_id, last_seen) stamps the
 * presence rows of `uids` (of those among them that `held`, a CTE or subquery with a `uid`
 * column, selects, when given), and `came_online` (the same columns) sets `online` on those that
 * were offline, the only ones whose `devices` row is written (models/device-presence.ts). The
 * statement selects from them.
 */
export const seenNow = (uids: string[], held?: SQL) => sql`
  seen as (
    update ${devicePresence} set last_seen = now()
    where ${amongUids(devicePresence.uid, uids)}${held ? sql` and ${devicePresence.uid} in (select uid from ${held})` : sql``}
    returning ${devicePresence.uid}, ${devicePresence.tenantId}, ${devicePresence.lastSeen}
  ), came_online as (
    update ${devices} set online = true from seen
    where ${amongUids(devices.uid, uids)} and ${devices.uid} = seen.uid and not ${devices.online}
    returning seen.uid, seen.tenant_id, seen.last_seen
  )`;

/** A device as `seenNow`'s CTEs and `takeOffline` give it. */
export type SeenDevice = { uid: string; tenant_id: string; last_seen: string | Date };

/** Tells the namespaces' live streams that these devices came online or went offline, and why (their transitions keep it). */
const announce = (db: Executor, online: boolean, changed: SeenDevice[], cause: string) =>
  publishEvents(
    db,
    changed.map((row) => ({
      tenantId: row.tenant_id,
      type: online ? ("device.online" as const) : ("device.offline" as const),
      uid: row.uid,
      patch: { online, last_seen: new Date(row.last_seen) },
      cause,
    })),
  );

export const announceOnline = (db: Executor, cameOnline: SeenDevice[], cause: string) =>
  announce(db, true, cameOnline, cause);

export const announceOffline = (db: Executor, offline: SeenDevice[], cause: string) =>
  announce(db, false, offline, cause);

/** Takes the devices `where` selects offline and announces them with `cause`; returns them. */
export async function takeOffline(db: Executor, where: SQL | undefined, cause: string) {
  const offline = await db
    .update(devices)
    .set({ online: false })
    .from(devicePresence)
    .where(and(where, presenceOfDevice))
    .returning({ uid: devices.uid, tenant_id: devices.tenantId, last_seen: devicePresence.lastSeen });
  await announceOffline(db, offline, cause);
  return offline;
}
