import { createHash, randomUUID } from "node:crypto";
import type { Scope } from "@/lib/auth/credentials";
import type { Executor } from "@/lib/db";
import { type DeviceStatus, devices } from "@/models/devices";
import { registerAgent, uniqueMac } from "../agents";
import { type CallOptions, call, uniqueName } from "../client";
import type { SeededNamespace } from "./namespaces";

/**
 * Devices. Through the API (`seedDevice`: registered as its agent does, then changed by the
 * namespace's owner), or as rows for service tests (`insertDevice`, `insertDevices`).
 */

/** A random device uid (64 hex digits, as agents derive them). */
export const randomUid = () => createHash("sha256").update(randomUUID()).digest("hex");

export type DeviceStatusWord = "accept" | "reject" | "pending" | "unused";

export type SeededDevice = { uid: string; token: string; name: string; hostname: string; mac: string };

/**
 * A device registered through the agent endpoint (pending), with its device token; then given
 * its status and tags by the namespace's owner, and taken offline through the agent's offline
 * endpoint, when asked.
 */
export async function seedDevice(
  namespace: Pick<SeededNamespace, "tenantId" | "owner">,
  options: { hostname?: string; status?: DeviceStatusWord; tags?: readonly string[]; isOnline?: boolean } & Pick<
    CallOptions,
    "baseUrl"
  > = {},
): Promise<SeededDevice> {
  const hostname = options.hostname ?? uniqueName("dev");
  const mac = uniqueMac();
  const base = { baseUrl: options.baseUrl };
  const device = await registerAgent(namespace.tenantId, { hostname, identity: { mac } }, base);
  const owner = { ...base, token: namespace.owner.tenantToken };
  if (options.status && options.status !== "pending") {
    const response = await call("PATCH", `/api/devices/${device.uid}/${options.status}`, owner);
    if (response.status !== 200) throw new Error(`status change failed: ${response.status} ${response.text}`);
  }
  if (options.tags) {
    const response = await call("PUT", `/api/devices/${device.uid}/tags`, { ...owner, body: { tags: options.tags } });
    if (response.status !== 200) throw new Error(`tags failed: ${response.status} ${response.text}`);
  }
  if (options.isOnline === false) {
    const response = await call("POST", `/internal/devices/${device.uid}/offline`, { ...base, token: device.token });
    if (response.status !== 200) throw new Error(`offline failed: ${response.status} ${response.text}`);
  }
  return { uid: device.uid, token: device.token, name: device.name, hostname, mac };
}

type DeviceRowInput = { status?: DeviceStatus; tags?: string[]; name?: string };

/** A device row as an agent's registration would leave it (the key is a placeholder). */
const deviceRow = (uid: string, tenantId: string, { status = "pending", tags = [], name }: DeviceRowInput) => ({
  uid,
  tenantId,
  name: name ?? `dev-${uid.slice(0, 12)}`,
  identity: { mac: "00:11:22:33:44:55" },
  info: { id: "debian", pretty_name: "Debian", version: "1", arch: "amd64", platform: "docker" },
  publicKey: "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
  status,
  tags,
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
