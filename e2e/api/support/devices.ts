import { registerAgent, uniqueMac } from "./agents";
import { type CallOptions, call, type SeededNamespace, uniqueName } from "./client";

export type RegisteredDevice = { uid: string; token: string; name: string };

/** A device of the namespace, registered as its agent does (`POST /api/devices/auth`), with its token. */
export async function registerDevice(
  namespace: SeededNamespace,
  hostname = uniqueName("dev"),
): Promise<RegisteredDevice> {
  const { uid, token, name } = await registerAgent(namespace.tenantId, { hostname });
  return { uid, token, name };
}

export type DeviceStatusWord = "accept" | "reject" | "pending" | "unused";

export type SeededDevice = { uid: string; token: string; name: string; hostname: string; mac: string };

/** An agent's heartbeat: registers the device on first call; marks it online and bumps `last_seen`. */
export function heartbeat(tenantId: string, hostname: string, mac: string, options: CallOptions = {}) {
  return registerAgent(tenantId, { hostname, identity: { mac } }, options);
}

/**
 * A device registered through the agent endpoint, then given its status and tags by the
 * namespace's owner, and taken offline through the agent's offline endpoint when asked.
 */
export async function seedDevice(
  namespace: SeededNamespace,
  options: { hostname?: string; status?: DeviceStatusWord; tags?: readonly string[]; isOnline?: boolean } & Pick<
    CallOptions,
    "baseUrl"
  > = {},
): Promise<SeededDevice> {
  const hostname = options.hostname ?? uniqueName("dev");
  const mac = uniqueMac();
  const base = { baseUrl: options.baseUrl };
  const device = await heartbeat(namespace.tenantId, hostname, mac, base);
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

/** The `filter` query value: base64 of the JSON of `items`. */
export const filterOf = (items: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(items)).toString("base64"));
export const property = (name: string, operator: string, value: unknown) => ({
  type: "property",
  params: { name, operator, value },
});
