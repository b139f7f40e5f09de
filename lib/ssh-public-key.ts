import { md5 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * The rules of a stored public key's line, `TYPE BLOB [COMMENT]`, shared by the server
 * (lib/services/public-key-format.ts) and the console, which shows type, bits, comment and
 * fingerprint before saving: what one refuses the other refuses, in the same words. Plain
 * `Uint8Array`, `atob`/`btoa` and @noble/hashes, so it runs in the browser too.
 */

/** Why a key is refused: the API's 400 on `data` carries this message. */
export class KeyLineProblem extends Error {}

export const sshKeyTypes = [
  "ssh-rsa",
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
] as const;
export type SshKeyType = (typeof sshKeyTypes)[number];

export type SshPublicKey = { type: SshKeyType; bits: number; comment: string; blob: Uint8Array };

const ecdsaPoints: Record<string, { bytes: number; bits: number }> = {
  nistp256: { bytes: 65, bits: 256 },
  nistp384: { bytes: 97, bits: 384 },
  nistp521: { bytes: 133, bits: 521 },
};
const minRsaBits = 1024;

/** Decodes canonical standard base64 only (decoders skip junk and padding silently). */
export function strictBase64(text: string, what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    throw new KeyLineProblem(`${what} is not base64`);
  }
  if (text === "" || base64Of(bytes) !== text) throw new KeyLineProblem(`${what} is not base64`);
  return bytes;
}

const base64Of = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""));
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/** Reads the SSH wire format (RFC 4251): length-prefixed strings. */
class WireReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  string(): Uint8Array {
    if (this.offset + 4 > this.bytes.length) throw new KeyLineProblem("the key blob is truncated");
    const length = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, 4).getUint32(0);
    const start = this.offset + 4;
    if (length > this.bytes.length - start) throw new KeyLineProblem("the key blob is truncated");
    this.offset = start + length;
    return this.bytes.subarray(start, this.offset);
  }

  end() {
    if (this.offset !== this.bytes.length) throw new KeyLineProblem("the key blob has trailing bytes");
  }
}

function bitLength(mpint: Uint8Array): number {
  const first = mpint.findIndex((byte) => byte !== 0);
  if (first === -1) return 0;
  return (mpint.length - first - 1) * 8 + (32 - Math.clz32(mpint[first] ?? 0));
}

/** Checks the fields after the type name and answers the key's size in bits. */
function keyBits(type: SshKeyType, reader: WireReader): number {
  let bits: number;
  if (type === "ssh-ed25519") {
    if (reader.string().length !== 32) throw new KeyLineProblem("an ed25519 key has 32 bytes");
    bits = 256;
  } else if (type === "ssh-rsa") {
    const exponent = reader.string();
    bits = bitLength(reader.string());
    if (bitLength(exponent) === 0) throw new KeyLineProblem("the RSA exponent is zero");
    if (bits < minRsaBits) throw new KeyLineProblem(`RSA keys need at least ${minRsaBits} bits`);
  } else {
    const curve = type.slice("ecdsa-sha2-".length);
    if (latin1(reader.string()) !== curve) throw new KeyLineProblem("the ECDSA curve does not match the key type");
    const point = reader.string();
    const expected = ecdsaPoints[curve];
    if (!expected || point.length !== expected.bytes || point[0] !== 4) {
      throw new KeyLineProblem(`not a ${curve} public point`);
    }
    bits = expected.bits;
  }
  reader.end();
  return bits;
}

/**
 * Reads one OpenSSH public key line. Only the types above are accepted, and the type inside the
 * blob must be the line's; anything else (options before the type, several lines, a malformed
 * blob) throws a `KeyLineProblem`.
 */
export function parsePublicKeyLine(text: string): SshPublicKey {
  const line = text.trim();
  if (/[\r\n]/.test(line)) throw new KeyLineProblem("expected one key line");
  const [, type = "", encoded = "", comment = ""] = /^(\S+)(?:[ \t]+(\S+))?(?:[ \t]+(.*))?$/.exec(line) ?? [];
  if (!(sshKeyTypes as readonly string[]).includes(type)) {
    throw new KeyLineProblem(`expected an OpenSSH public key line of type ${sshKeyTypes.join(", ")}`);
  }
  const keyType = type as SshKeyType;
  const blob = strictBase64(encoded, "the key blob");
  const reader = new WireReader(blob);
  if (latin1(reader.string()) !== keyType) throw new KeyLineProblem("the key blob's type does not match the line's");
  return { type: keyType, bits: keyBits(keyType, reader), comment, blob };
}

/** A key's `data` as the API takes it: base64 of the line's UTF-8. */
export const keyDataOf = (line: string) => base64Of(new TextEncoder().encode(line.trim()));

/** The key of a stored or sent `data` (base64 of one line). */
export const publicKeyOfData = (data: string) =>
  parsePublicKeyLine(new TextDecoder().decode(strictBase64(data, "data")));

const hexPairs = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(":");

/** The MD5 of a key's wire blob as 16 colon-separated hex pairs (`ssh-keygen -l -E md5`): the API's key id. */
export const md5Fingerprint = (blob: Uint8Array) => hexPairs(md5(blob));

/** `SHA256:…`, as `ssh-keygen -l` prints it by default. */
export const sha256Fingerprint = (blob: Uint8Array) => `SHA256:${base64Of(sha256(blob)).replace(/=+$/, "")}`;

/** Whether pasted text is a private key (a common mistake: the file next to the .pub). */
export const isPrivateKeyText = (text: string) =>
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|^PuTTY-User-Key-File-/m.test(text);
