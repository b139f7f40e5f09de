import { createHash, verify } from "node:crypto";
import { unauthorized } from "../errors";
import { maxCachedDevices, processSingleton, setInCache } from "../process-state";
import { deviceProofLeadSeconds, deviceProofLifetimeSeconds, deviceProofText } from "../protocol";
import { derOfPem, publicKeyObject } from "../public-key";
import type { AuthDeviceInput } from "../schemas/agent";

/** SHA-256 (hex) of a PEM key's DER bytes: how a device is found by its key. */
export function keyDigestOf(pem: string): string {
  return createHash("sha256").update(derOfPem(pem)).digest("hex");
}

// Agents sign once every few minutes and send that proof with each heartbeat: a proof already
// verified for the same device is a string comparison, not a signature check.
const verifiedProofs = processSingleton("verified device proofs", () => new Map<string, string>());

function signatureVerifies(publicKeyPem: string, text: string, signature: string): boolean {
  try {
    const key = publicKeyObject(publicKeyPem);
    const isEdwards = key.asymmetricKeyType === "ed25519" || key.asymmetricKeyType === "ed448";
    return verify(isEdwards ? null : "sha256", Buffer.from(text), key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/**
 * Whether the call proves it holds the private half of its `public_key`: false when it carries no
 * proof, a 401 when its proof is stale or does not verify. `uid` is the device the body names (its
 * uid binds the key, so the body's key is the stored one).
 */
export function isProvenCall(input: AuthDeviceInput, uid: string, nowMs = Date.now()): boolean {
  const { proof } = input;
  if (!proof) return false;
  const age = Math.floor(nowMs / 1000) - proof.timestamp;
  if (age > deviceProofLifetimeSeconds || age < -deviceProofLeadSeconds) {
    throw unauthorized(
      `the proof's timestamp is ${age > 0 ? `${age} s old` : `${-age} s ahead`}: sign again with the server's time (the Date header)`,
    );
  }
  const seen = `${proof.timestamp}.${proof.signature}`;
  if (verifiedProofs.get(uid) === seen) return true;
  if (!signatureVerifies(input.public_key, deviceProofText(input, proof.timestamp), proof.signature)) {
    throw unauthorized("the proof's signature does not verify with the device's public key");
  }
  setInCache(verifiedProofs, uid, seen, maxCachedDevices);
  return true;
}
