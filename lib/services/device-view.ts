import { and, count, eq } from "drizzle-orm";
import type { DeviceRow } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import type { Executor } from "../db";
import { notFound } from "../errors";
import { deviceLimit } from "./plan-limit";

/**
 * A device row as the API shows it. `acceptable` says whether accepting it now would stay
 * within the namespace's device limit (pass whether the namespace is full).
 */
export function describeDevice(row: DeviceRow, namespaceName: string, isNamespaceFull = false) {
  return {
    uid: row.uid,
    name: row.name,
    identity: row.identity,
    info: row.info,
    public_key: row.publicKey,
    tenant_id: row.tenantId,
    last_seen: row.lastSeen,
    online: row.online,
    namespace: namespaceName,
    status: row.status,
    status_update_at: row.statusUpdateAt,
    created_at: row.createdAt,
    remote_addr: row.remoteAddr,
    position: row.position ?? null,
    tags: row.tags,
    public_url: row.publicUrl,
    acceptable: row.status !== "accepted" && !isNamespaceFull,
  };
}

/**
 * The namespace's name and whether it holds as many accepted devices as its limit already
 * (`max_devices` or the free plan's, plan-limit.ts; -1: no cap).
 * Counting stops at the cap, so a large namespace costs no more than its limit.
 */
export async function namespaceState(db: Executor, tenantId: string) {
  const [namespace] = await db
    .select({ name: namespaces.name, maxDevices: namespaces.maxDevices })
    .from(namespaces)
    .where(eq(namespaces.tenantId, tenantId));
  if (!namespace) throw notFound("namespace");
  const { limit } = await deviceLimit(db, tenantId, namespace.maxDevices);
  if (limit < 0) return { name: namespace.name, isFull: false };
  const upToCap = db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(eq(devices.tenantId, tenantId), eq(devices.status, "accepted")))
    .limit(limit)
    .as("accepted");
  const [accepted] = await db.select({ count: count() }).from(upToCap);
  return { name: namespace.name, isFull: (accepted?.count ?? 0) >= limit };
}
