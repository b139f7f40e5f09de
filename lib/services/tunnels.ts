import { and, eq, inArray } from "drizzle-orm";
import { devices } from "@/models/devices";
import { tunnels } from "@/models/tunnels";
import type { Executor } from "../db";

/** The stored public key (PEM) of the device, when it is accepted in that namespace. */
export async function acceptedDeviceKey(db: Executor, uid: string, tenantId: string): Promise<string | undefined> {
  const [device] = await db
    .select({ status: devices.status, publicKey: devices.publicKey })
    .from(devices)
    .where(and(eq(devices.uid, uid), eq(devices.tenantId, tenantId)));
  return device?.status === "accepted" ? device.publicKey : undefined;
}

/**
 * Which of these devices are still accepted (in whatever namespace): a tunnel of any other is
 * dropped. Unscoped: the tunnel registry holds devices of every namespace.
 */
export async function unscopedStillAcceptedDevices(db: Executor, uids: string[]): Promise<Set<string>> {
  const accepted = await db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(inArray(devices.uid, uids), eq(devices.status, "accepted")));
  return new Set(accepted.map((row) => row.uid));
}

// Ownership rows: which instance holds a device's tunnel. The device uid alone names a row,
// hence unscoped.

/** Records `instance` as the holder of the device's tunnel, replacing any earlier holder. */
export async function unscopedRecordTunnelOwner(db: Executor, deviceUid: string, instance: string) {
  await db
    .insert(tunnels)
    .values({ deviceUid, instance })
    .onConflictDoUpdate({ target: tunnels.deviceUid, set: { instance, connectedAt: new Date() } });
}

/** Forgets the device's row if `instance` still holds it (a newer holder keeps its row). */
export async function unscopedForgetTunnelOwner(db: Executor, deviceUid: string, instance: string) {
  await db.delete(tunnels).where(and(eq(tunnels.deviceUid, deviceUid), eq(tunnels.instance, instance)));
}

/** Forgets the rows of one instance, or every row when `instance` is undefined. */
export async function unscopedForgetInstanceTunnels(db: Executor, instance: string | undefined) {
  await db.delete(tunnels).where(instance === undefined ? undefined : eq(tunnels.instance, instance));
}

/** The instance that holds the device's tunnel, if any does. */
export async function unscopedTunnelOwner(db: Executor, deviceUid: string): Promise<string | undefined> {
  const [row] = await db.select({ instance: tunnels.instance }).from(tunnels).where(eq(tunnels.deviceUid, deviceUid));
  return row?.instance;
}
