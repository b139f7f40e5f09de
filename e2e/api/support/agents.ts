import { generateKeyPairSync } from "node:crypto";
import { type CallOptions, call } from "./client";

/** One RSA key per test file: generating them is slow, and agents differ by hostname and MAC anyway. */
export const devicePublicKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .publicKey.export({ type: "spki", format: "pem" })
  .toString();

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
    public_key: devicePublicKey,
    tenant_id: tenantId,
    ...overrides,
  };
}

/** The agent's call: registers the device on the first one, a heartbeat on every one. */
export function authDevice(body: unknown, options: CallOptions = {}) {
  return call("POST", "/api/devices/auth", {
    ...options,
    body,
  });
}

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
