import { createPublicKey, type KeyObject } from "node:crypto";

// OpenSSL 3 reads a PEM or DER key through its generic decoder: about 85 µs a key on a small
// machine. An ed25519 key given as its 32 bytes (a JWK) takes about 6 µs. Agents' keys are
// ed25519, and one is read for every new heartbeat proof and every tunnel.

// An ed25519 key in SPKI DER (RFC 8410): this prefix, then the key's 32 bytes.
const ed25519SpkiPrefix = Buffer.from("302a300506032b6570032100", "hex");

/** The DER bytes of a PEM block. */
export function derOfPem(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]*-----|\s/g, ""), "base64");
}

/** The 32 bytes of an ed25519 key in SPKI DER; undefined for any other key. */
export function ed25519OfSpki(der: Buffer): Buffer | undefined {
  const isEd25519 =
    der.length === ed25519SpkiPrefix.length + 32 && der.subarray(0, ed25519SpkiPrefix.length).equals(ed25519SpkiPrefix);
  return isEd25519 ? der.subarray(ed25519SpkiPrefix.length) : undefined;
}

/** An ed25519 public key from its 32 bytes. */
export function ed25519KeyObject(raw: Buffer): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
}

/** A PEM public key (SPKI) as a key object; throws on a key OpenSSL cannot read. */
export function publicKeyObject(pem: string): KeyObject {
  const raw = ed25519OfSpki(derOfPem(pem));
  return raw ? ed25519KeyObject(raw) : createPublicKey(pem);
}
