import { createPublicKey, verify } from "node:crypto";
import ssh2, { type ParsedKey } from "ssh2";
import { derOfPem, ed25519KeyObject, ed25519OfSpki } from "../public-key";

// Keys that devices and users present: turned into SSH wire format, compared, and used to check
// signatures.

/** An OpenSSH key (private, or a public line) parsed by ssh2; throws on a key it cannot read. */
export function parseSshKey(key: string | Buffer): ParsedKey {
  const parsed = ssh2.utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  return Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
}

// SSH wire format (RFC 4251): length-prefixed strings and two's-complement mpints.
const wireString = (bytes: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};
const mpint = (bytes: Buffer) => wireString((bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);

/**
 * A device's stored public key (PEM, SPKI) as an SSH key: agents send PEM, SSH compares and
 * verifies in wire format. RSA and ed25519; undefined for anything else or a broken PEM.
 */
export function sshKeyFromPem(pem: string): ParsedKey | undefined {
  try {
    const ed25519 = ed25519OfSpki(derOfPem(pem));
    let blob: Buffer;
    if (ed25519) {
      blob = Buffer.concat([wireString(Buffer.from("ssh-ed25519")), wireString(ed25519)]);
    } else {
      const jwk = createPublicKey(pem).export({ format: "jwk" });
      if (jwk.kty !== "RSA" || !jwk.n || !jwk.e) return undefined;
      const [e, n] = [Buffer.from(jwk.e, "base64url"), Buffer.from(jwk.n, "base64url")];
      blob = Buffer.concat([wireString(Buffer.from("ssh-rsa")), mpint(e), mpint(n)]);
    }
    return parseSshKey(`${ed25519 ? "ssh-ed25519" : "ssh-rsa"} ${blob.toString("base64")}`);
  } catch {
    return undefined;
  }
}

/** A public key given in an authentication request (algorithm and wire blob). */
export function sshKeyFromWire(algo: string, data: Buffer): ParsedKey | undefined {
  const type = algo.startsWith("rsa-sha2-") ? "ssh-rsa" : algo;
  const parsed = ssh2.utils.parseKey(`${type} ${data.toString("base64")}`);
  if (parsed instanceof Error) return undefined;
  return Array.isArray(parsed) ? parsed[0] : parsed;
}

/**
 * Whether `signature` over `blob` was made with the private half of `key`. ssh2 checks an
 * ed25519 signature with the key as PEM, which OpenSSL decodes anew every time
 * (lib/public-key.ts); the key's 32 bytes, the last of its wire form, skip that.
 */
export function isValidSignature(key: ParsedKey, blob: Buffer, signature: Buffer, hashAlgo?: string): boolean {
  if (key.type === "ssh-ed25519") {
    try {
      return verify(null, blob, ed25519KeyObject(key.getPublicSSH().subarray(-32)), signature);
    } catch {
      return false;
    }
  }
  return key.verify(blob, signature, hashAlgo as Parameters<ParsedKey["verify"]>[2]) === true;
}
