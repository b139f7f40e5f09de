import { jwtVerify, SignJWT } from "jose";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";
import { hexUidShape } from "../protocol";
import { loadOrCreateSecret } from "../secrets";

const algorithm = "HS256";
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The signing key, imported once: given raw bytes, jose imports them anew for every token, which
 * doubles the cost of a signature (felt when thousands of agents come back after a restart).
 */
/** The secret that signs tokens: `JWT_SECRET`, or one kept in `DATA_DIR`. */
export function jwtSecret(): string {
  const config = getConfig();
  return config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR, "jwt.key");
}

function key(): Promise<CryptoKey> {
  return processSingleton("jwt key", () => {
    const secret = jwtSecret();
    const hmac = { name: "HMAC", hash: "SHA-256" };
    return crypto.subtle.importKey("raw", new TextEncoder().encode(secret), hmac, false, ["sign", "verify"]);
  });
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other value or none. */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1];
}

export type UserClaims = { sub: string; tenant: string };

export async function signUserToken(claims: UserClaims): Promise<string> {
  return new SignJWT({ tenant: claims.tenant, typ: "user" })
    .setProtectedHeader({ alg: algorithm })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + getConfig().JWT_TTL_SECONDS)
    .sign(await key());
}

/** Verifies signature (HS256 only), expiry and shape; undefined for anything else. */
export async function verifyUserToken(token: string): Promise<UserClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, await key(), {
      algorithms: [algorithm],
      requiredClaims: ["exp", "sub"],
    });
    const { typ, sub, tenant } = payload;
    if (typ !== "user" || typeof sub !== "string" || typeof tenant !== "string") return undefined;
    if (!uuid.test(sub) || (tenant !== "" && !uuid.test(tenant))) return undefined;
    return { sub, tenant };
  } catch {
    return undefined;
  }
}

export type DeviceClaims = { uid: string; tenant: string };

/** The token an agent gets from `POST /api/devices/auth`: it names the device and its namespace. */
export async function signDeviceToken(claims: DeviceClaims): Promise<string> {
  return new SignJWT({ uid: claims.uid, tenant: claims.tenant, typ: "device" })
    .setProtectedHeader({ alg: algorithm })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + getConfig().JWT_TTL_SECONDS)
    .sign(await key());
}

export async function verifyDeviceToken(token: string): Promise<DeviceClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, await key(), { algorithms: [algorithm], requiredClaims: ["exp"] });
    const { typ, uid, tenant } = payload;
    if (typ !== "device" || typeof uid !== "string" || typeof tenant !== "string") return undefined;
    if (!hexUidShape.test(uid) || !uuid.test(tenant)) return undefined;
    return { uid, tenant };
  } catch {
    return undefined;
  }
}
