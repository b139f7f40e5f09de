import { generateKeyPairSync } from "node:crypto";
import { agentBody, authDevice, uniqueMac } from "./agents";
import { type CallOptions, call, type SeededNamespace, uniqueName } from "./client";

export type RegisteredDevice = { uid: string; token: string; name: string };

/** A device of the namespace, registered as its agent does (`POST /api/devices/auth`), with its token. */
export async function registerDevice(
  namespace: SeededNamespace,
  hostname = uniqueName("dev"),
): Promise<RegisteredDevice> {
  const publicKey = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
    type: "spki",
    format: "pem",
  });
  const response = await call("POST", "/api/devices/auth", {
    body: {
      info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "v0.16.4", arch: "amd64", platform: "native" },
      sessions: [],
      hostname,
      identity: { mac: "02:42:ac:11:00:02" },
      public_key: publicKey.toString(),
      tenant_id: namespace.tenantId,
    },
  });
  if (response.status !== 200) throw new Error(`device auth failed: ${response.status} ${response.text}`);
  return { uid: response.body.uid, token: response.body.token, name: response.body.name };
}

export type DeviceStatusWord = "accept" | "reject" | "pending" | "unused";

export type SeededDevice = { uid: string; token: string; name: string; hostname: string; mac: string };

/** An agent's heartbeat: registers the device on first call; marks it online and bumps `last_seen`. */
export async function heartbeat(tenantId: string, hostname: string, mac: string, options: CallOptions = {}) {
  const response = await authDevice(agentBody(tenantId, { hostname, identity: { mac } }), options);
  if (response.status !== 200) throw new Error(`device auth failed: ${response.status} ${response.text}`);
  return response.body as { uid: string; token: string; name: string; namespace: string };
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
