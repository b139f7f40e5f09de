import { generateKeyPairSync, randomBytes } from "node:crypto";
import { type CallOptions, call, type SeededNamespace, uniqueName } from "./client";

export type DeviceStatusWord = "accept" | "reject" | "pending" | "unused";

export type SeededDevice = { uid: string; token: string; name: string; hostname: string; mac: string };

let publicKey: string | undefined;

/** One RSA key per test file (generating one costs tens of milliseconds); devices differ by hostname and MAC. */
function agentKey() {
  publicKey ??= generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({
    type: "spki",
    format: "pem",
  }) as string;
  return publicKey;
}

export const randomMac = () => Array.from(randomBytes(6), (byte) => byte.toString(16).padStart(2, "0")).join(":");

/** The body an agent sends to `POST /api/devices/auth`. */
export function agentBody(tenantId: string, hostname: string, mac: string) {
  return {
    info: { id: "debian", pretty_name: "Debian", version: "1", arch: "x86_64", platform: "docker" },
    sessions: [],
    hostname,
    identity: { mac },
    public_key: agentKey(),
    tenant_id: tenantId,
  };
}

/** An agent's heartbeat: registers the device on first call; marks it online and bumps `last_seen`. */
export async function heartbeat(tenantId: string, hostname: string, mac: string, options: CallOptions = {}) {
  const response = await call("POST", "/api/devices/auth", { ...options, body: agentBody(tenantId, hostname, mac) });
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
  const mac = randomMac();
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
