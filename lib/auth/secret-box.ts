import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";
import { loadOrCreateSecret } from "../secrets";

const version = "v1";

/** The AES-256 key: MFA_ENCRYPTION_KEY, or one generated into DATA_DIR/mfa.key on first use. */
function key(): Buffer {
  return processSingleton("secret box key", () => {
    const config = getConfig();
    const encoded = config.MFA_ENCRYPTION_KEY ?? loadOrCreateSecret(config.DATA_DIR, "mfa.key", 32);
    return Buffer.from(encoded, encoded === config.MFA_ENCRYPTION_KEY ? "base64" : "base64url");
  });
}

/**
 * Encrypts a secret for storage with AES-256-GCM under the server's key. `context` (the owner's
 * id) is bound in as additional data, so a stored value copied to another row does not decrypt.
 */
export const sealSecret = (plain: string, context: string) => sealWith(key(), plain, context);

/** The secret `sealSecret` stored; throws when it was altered or sealed for another context. */
export const openSecret = (stored: string, context: string) => openWith(key(), stored, context);

/** `sealSecret` under a key of the caller's (32 bytes). */
export function sealWith(secretKey: Buffer, plain: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", secretKey, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [version, iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** `openSecret` under a key of the caller's. */
export function openWith(secretKey: Buffer, stored: string, context: string): string {
  const [tag, iv = "", authTag = "", sealed = ""] = stored.split(".");
  if (tag !== version) throw new Error("unknown sealed-secret format");
  const decipher = createDecipheriv("aes-256-gcm", secretKey, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(Buffer.from(authTag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
}
