// The wire contract between the agent (agent/) and the server: both import it from here.

/** Where agents open their tunnel: a WebSocket upgrade on the API's port. */
export const tunnelPath = "/agent/tunnel";

/**
 * The agent's clock (Unix milliseconds) when it opens the tunnel, sent with the upgrade: the
 * server keeps the difference to its own clock for the device's diagnostics.
 */
export const agentTimeHeader = "x-agent-time";

/** The address an agent asks the server to forward: the device's own SSH service. */
export const forwardedSsh = { address: "device", port: 22 } as const;

/** Device and session uids: 64 lower-case hex characters (a SHA-256, or 32 random bytes). */
export const hexUidShape = /^[0-9a-f]{64}$/;

/** What an agent's call of `POST /api/devices/auth` carries to prove it holds the device key. */
export type DeviceProof = { timestamp: number; signature: string };

/** How long a proof stays valid after its timestamp, and how far ahead of the server's clock it may be. */
export const deviceProofLifetimeSeconds = 600;
export const deviceProofLeadSeconds = 60;

/**
 * The text an agent signs with its device key (RSA: PKCS#1 v1.5 with SHA-256; ed25519: plain)
 * for `proof.timestamp` (Unix seconds): the call's namespace, hostname and MAC address exactly
 * as the body sends them, so a proof cannot be moved to another identity (docs/device-identity.md).
 */
export function deviceProofText(
  body: { tenant_id: string; hostname: string; identity: { mac: string } },
  timestamp: number,
) {
  return ["device-auth-v1", body.tenant_id, body.hostname, body.identity.mac, String(timestamp)].join("\n");
}
