// The wire contract between the agent (agent/) and the server: both import it from here.

/** Where agents open their tunnel: a WebSocket upgrade on the API's port. */
export const tunnelPath = "/agent/tunnel";

/** The address an agent asks the server to forward: the device's own SSH service. */
export const forwardedSsh = { address: "device", port: 22 } as const;

/** Device and session uids: 64 lower-case hex characters (a SHA-256, or 32 random bytes). */
export const hexUidShape = /^[0-9a-f]{64}$/;
