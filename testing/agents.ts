import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { deviceProofText } from "@/lib/protocol";
import { type CallOptions, call } from "./client";
import { waitFor } from "./wait";

export { type RunningAgent, spawnAgent, startAgent } from "./agent-process";

/**
 * Agents: their HTTP call made by the test itself (`registerAgent`...), or the real agent
 * (`agent/main.ts`) as a process (`spawnAgent`, `startAgent`).
 */

// The private half of every device key the kit made, by public PEM: the kit signs as agents do.
const privateKeys = new Map<string, KeyObject>();

/** A new device key (ed25519: fast to make, and the key is the device); answers its public PEM. */
export function newDeviceKey(): string {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  privateKeys.set(pem, privateKey);
  return pem;
}

/**
 * The body with the proof its agent would send (docs/device-identity.md), signed now or at
 * `timestamp`, with `privateKey` or the kit's own key for the body's; a body whose key the kit
 * did not make, with no `privateKey` given, is returned as it is.
 */
export function signedBody<T extends Pick<AgentBody, "tenant_id" | "hostname" | "identity" | "public_key">>(
  body: T,
  { timestamp = Math.floor(Date.now() / 1000), privateKey }: { timestamp?: number; privateKey?: KeyObject } = {},
): T & { proof?: { timestamp: number; signature: string } } {
  const key = privateKey ?? privateKeys.get(body.public_key);
  if (!key) return body;
  const text = Buffer.from(deviceProofText(body, timestamp));
  const signature = sign(key.asymmetricKeyType === "ed25519" ? null : "sha256", text, key).toString("base64");
  return { ...body, proof: { timestamp, signature } };
}

let counter = 0;

/** A MAC address no other call in this process returns. */
export function uniqueMac(): string {
  counter += 1;
  const bytes = [
    0x02,
    process.pid & 255,
    (counter >> 16) & 255,
    (counter >> 8) & 255,
    counter & 255,
    Math.floor(Math.random() * 256),
  ];
  return bytes.map((byte) => byte.toString(16).padStart(2, "0")).join(":");
}

export type AgentBody = {
  info: { id: string; pretty_name: string; version: string; arch: string; platform: string };
  sessions: string[];
  hostname: string;
  identity: { mac: string };
  public_key: string;
  tenant_id: string;
};

export function agentBody(tenantId: string, overrides: Partial<AgentBody> = {}): AgentBody {
  return {
    info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "0.1.0", arch: "x86_64", platform: "native" },
    sessions: [],
    hostname: `host-${uniqueMac().replaceAll(":", "")}`,
    identity: { mac: uniqueMac() },
    public_key: newDeviceKey(),
    tenant_id: tenantId,
    ...overrides,
  };
}

/**
 * The agent's call: registers the device on the first one, a heartbeat on every one. A body the
 * kit can sign and that carries no `proof` of its own is signed, as the agent signs; `unsigned`
 * sends it as an agent that cannot sign does.
 */
export function authDevice(body: unknown, options: CallOptions & { unsigned?: boolean } = {}) {
  const { unsigned, ...callOptions } = options;
  const isSignable = !unsigned && isAgentBody(body) && !("proof" in body);
  return call("POST", "/api/devices/auth", { ...callOptions, body: isSignable ? signedBody(body) : body });
}

const isAgentBody = (body: unknown): body is AgentBody =>
  typeof body === "object" &&
  body !== null &&
  typeof (body as AgentBody).public_key === "string" &&
  typeof (body as AgentBody).tenant_id === "string" &&
  typeof (body as AgentBody).hostname === "string" &&
  typeof (body as AgentBody).identity?.mac === "string";

export type RegisteredAgent = { uid: string; token: string; name: string; namespace: string };

/** A device of the namespace, registered (or called in) as its agent does, with its device token. */
export async function registerAgent(
  tenantId: string,
  overrides: Partial<AgentBody> = {},
  options: CallOptions = {},
): Promise<RegisteredAgent> {
  const response = await authDevice(agentBody(tenantId, overrides), options);
  if (response.status !== 200) throw new Error(`device auth failed: ${response.status} ${response.text}`);
  return response.body as RegisteredAgent;
}

/** Waits for the agent's device to register, then accepts it; answers its uid. */
export async function acceptAgentDevice(hostname: string, options: CallOptions) {
  let uid = "";
  await waitFor(`device ${hostname} to register`, async () => {
    const pending = await call("GET", "/api/devices?status=pending&per_page=100", options);
    uid = (pending.body as { uid: string; name: string }[]).find((device) => device.name === hostname)?.uid ?? "";
    return uid !== "";
  });
  const accepted = await call("PATCH", `/api/devices/${uid}/accept`, options);
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  return uid;
}
