import { createSigner, createVerifier } from "fast-jwt";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";
import { hexUidShape } from "../protocol";
import { loadOrCreateSecret } from "../secrets";

const algorithm = "HS256";
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The secret that signs tokens: `JWT_SECRET`, or one kept in `DATA_DIR`. */
export function jwtSecret(): string {
  const config = getConfig();
  return config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR, "jwt.key");
}

/**
 * The signer and the verifiers, made once with the key. fast-jwt checks an HS256 token with
 * Node's own HMAC, synchronously, in 8 µs; WebCrypto's (through jose) took 120 µs of the event
 * loop, paid by every tunnel that opens and every API call (docs/performance.md).
 */
function tokens() {
  return processSingleton("jwt", () => {
    const key = jwtSecret();
    return {
      sign: createSigner({ key, algorithm, expiresIn: getConfig().JWT_TTL_SECONDS * 1000 }),
      verifyUser: createVerifier({ key, algorithms: [algorithm], requiredClaims: ["exp", "sub"] }),
      verifyDevice: createVerifier({ key, algorithms: [algorithm], requiredClaims: ["exp"] }),
    };
  });
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other value or none. */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1];
}

export type UserClaims = { sub: string; tenant: string };

export function signUserToken(claims: UserClaims): string {
  return tokens().sign({ sub: claims.sub, tenant: claims.tenant, typ: "user" });
}

/** The claims of a token that verifies; undefined for anything else (signature, expiry, shape). */
function verifiedClaims(verify: (token: string) => unknown, token: string): Record<string, unknown> | undefined {
  try {
    const payload = verify(token);
    return typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies signature (HS256 only), expiry and shape; undefined for anything else. */
export function verifyUserToken(token: string): UserClaims | undefined {
  const payload = verifiedClaims(tokens().verifyUser, token);
  if (!payload) return undefined;
  const { typ, sub, tenant } = payload;
  if (typ !== "user" || typeof sub !== "string" || typeof tenant !== "string") return undefined;
  if (!uuid.test(sub) || (tenant !== "" && !uuid.test(tenant))) return undefined;
  return { sub, tenant };
}

export type DeviceClaims = { uid: string; tenant: string };

/** The token an agent gets from `POST /api/devices/auth`: it names the device and its namespace. */
export function signDeviceToken(claims: DeviceClaims): string {
  return tokens().sign({ uid: claims.uid, tenant: claims.tenant, typ: "device" });
}

export function verifyDeviceToken(token: string): DeviceClaims | undefined {
  const payload = verifiedClaims(tokens().verifyDevice, token);
  if (!payload) return undefined;
  const { typ, uid, tenant } = payload;
  if (typ !== "device" || typeof uid !== "string" || typeof tenant !== "string") return undefined;
  if (!hexUidShape.test(uid) || !uuid.test(tenant)) return undefined;
  return { uid, tenant };
}
