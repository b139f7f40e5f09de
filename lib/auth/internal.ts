import { timingSafeEqual } from "node:crypto";
import { getConfig } from "../config";
import { loadOrCreateSecret } from "../secrets";

export const internalSecretHeader = "x-internal-secret";

/**
 * The secret shared by the server and local tools (admin CLI), kept in DATA_DIR, or given as
 * INTERNAL_SECRET to every instance of a multi-instance deployment.
 */
export function internalSecret(): string {
  const config = getConfig();
  return config.INTERNAL_SECRET ?? loadOrCreateSecret(config.DATA_DIR, "internal.secret");
}

export function isInternalSecret(candidate: string | null): boolean {
  if (!candidate) return false;
  const expected = Buffer.from(internalSecret());
  const given = Buffer.from(candidate);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
