import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";
import { loadOrCreateFile } from "../secrets";

/**
 * The server's RSA key for `POST /api/auth/ssh`, generated into DATA_DIR on first use. Devices
 * can have any data signed with it, so it must never sign anything else (tokens, host keys).
 */
function signingKey(): KeyObject {
  return processSingleton("signing key", () => {
    const pem = loadOrCreateFile(getConfig().DATA_DIR, "signing.key", () =>
      generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs8", format: "pem" })
        .toString(),
    );
    return createPrivateKey(pem);
  });
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `data`, base64. */
export const signWithServerKey = (data: string) =>
  sign("sha256", Buffer.from(data, "utf8"), signingKey()).toString("base64");

/** The public half (SPKI PEM), with which devices check the signatures. */
export const serverPublicKeyPem = () =>
  createPublicKey(signingKey()).export({ type: "spki", format: "pem" }).toString();
