import { newDeviceKey, registerAgent, uniqueMac } from "../agents";
import { type CallOptions, call, uniqueName } from "../client";
import type { SeededNamespace } from "./namespaces";

/** Devices, registered as their agent does, then changed by the namespace's owner through the API. */

export type DeviceStatusWord = "accept" | "reject" | "pending" | "unused";

export type SeededDevice = {
  uid: string;
  token: string;
  name: string;
  hostname: string;
  mac: string;
  publicKey: string;
};

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
  const publicKey = newDeviceKey();
  const base = { baseUrl: options.baseUrl };
  const device = await registerAgent(namespace.tenantId, { hostname, identity: { mac }, public_key: publicKey }, base);
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
  return { uid: device.uid, token: device.token, name: device.name, hostname, mac, publicKey };
}
