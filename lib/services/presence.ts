import { and, type SQL, sql } from "drizzle-orm";
import { devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import type { Executor } from "../db";
import { publishEvents } from "./events";

/**
 * Two CTEs for a statement that sees devices now: `seen` (uid, tenant_id, last_seen) stamps the
 * presence rows of the uids `held` selects (a CTE or subquery with a `uid` column), and
 * `came_online` (the same columns) sets `online` on those that were offline, the only ones whose
 * `devices` row is written (models/device-presence.ts). The statement selects from them.
 */
export const seenNow = (held: SQL) => sql`
  seen as (
    update ${devicePresence} set last_seen = now()
    where ${devicePresence.uid} in (select uid from ${held})
    returning ${devicePresence.uid}, ${devicePresence.tenantId}, ${devicePresence.lastSeen}
  ), came_online as (
    update ${devices} set online = true from seen
    where ${devices.uid} = seen.uid and not ${devices.online}
    returning seen.uid, seen.tenant_id, seen.last_seen
  )`;

/** Takes the devices `where` selects offline; returns them with their `last_seen`, to announce. */
export const setOffline = (db: Executor, where: SQL | undefined) =>
  db
    .update(devices)
    .set({ online: false })
    .from(devicePresence)
    .where(and(where, presenceOfDevice))
    .returning({ uid: devices.uid, tenantId: devices.tenantId, lastSeen: devicePresence.lastSeen });

/** A device as `seenNow`'s CTEs give it. */
export type SeenDevice = { uid: string; tenant_id: string; last_seen: string | Date };

type ChangedDevice = { uid: string; tenantId: string; lastSeen: Date };

/** Tells the namespaces' live streams that these devices came online or went offline, and why (their transitions keep it). */
const announce = (db: Executor, online: boolean, changed: ChangedDevice[], cause: string) =>
  publishEvents(
    db,
    changed.map((device) => ({
      tenantId: device.tenantId,
      type: online ? ("device.online" as const) : ("device.offline" as const),
      uid: device.uid,
      patch: { online, last_seen: device.lastSeen },
      cause,
    })),
  );

export const announceOnline = (db: Executor, cameOnline: SeenDevice[], cause: string) =>
  announce(
    db,
    true,
    cameOnline.map((row) => ({ uid: row.uid, tenantId: row.tenant_id, lastSeen: new Date(row.last_seen) })),
    cause,
  );

export const announceOffline = (db: Executor, offline: ChangedDevice[], cause: string) =>
  announce(db, false, offline, cause);
