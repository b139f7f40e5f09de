import type { Scope } from "@/lib/auth/credentials";
import type { Executor } from "@/lib/db";
import { type DeviceStatus, devices } from "@/models/devices";
import { randomUid } from "../client";

type DeviceRowInput = { status?: DeviceStatus; tags?: string[]; name?: string; online?: boolean };

/** A device row as an agent's registration would leave it (the key and its digest are placeholders). */
const deviceRow = (
  uid: string,
  tenantId: string,
  { status = "pending", tags = [], name, online = false }: DeviceRowInput,
) => ({
  uid,
  tenantId,
  name: name ?? `dev-${uid.slice(0, 12)}`,
  identity: { mac: "00:11:22:33:44:55" },
  info: { id: "debian", pretty_name: "Debian", version: "1", arch: "amd64", platform: "docker" },
  publicKey: "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
  keyDigest: uid,
  status,
  tags,
  online,
});

/** One device row in the namespace; returns its uid. */
export async function insertDevice(
  db: Executor,
  tenantId: string,
  status: DeviceStatus = "pending",
  uid = randomUid(),
) {
  await db.insert(devices).values(deviceRow(uid, tenantId, { status }));
  return uid;
}

/** Device rows of the scope's namespace, one per entry; returns their uids. */
export async function insertDevices(db: Executor, scope: Scope, entries: DeviceRowInput[]) {
  const uids = entries.map(randomUid);
  await db.insert(devices).values(entries.map((entry, index) => deviceRow(uids[index] ?? "", scope.tenantId, entry)));
  return uids;
}
