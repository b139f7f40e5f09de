import { createHmac, timingSafeEqual } from "node:crypto";
import { internalSecret } from "./internal";

/**
 * The `sign` of the first-run setup link: only who reads the server's start message (or its
 * DATA_DIR) has it, so nobody else can claim a new, empty service by being first.
 */
export function setupSign(): string {
  return createHmac("sha256", internalSecret()).update("first-run setup").digest("base64url");
}

export function isSetupSign(candidate: string): boolean {
  const expected = Buffer.from(setupSign());
  const given = Buffer.from(candidate);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
