import { createHash } from "node:crypto";
import { ValidationError } from "../errors";

const ecdsaPointBytes: Record<string, number> = { nistp256: 65, nistp384: 97, nistp521: 133 };
const minRsaBits = 1024;

const refuse = (message: string) => new ValidationError([{ field: "data", message }]);

/** Decodes canonical standard base64 only (Node's decoder skips junk silently). */
function strictBase64(text: string, what: string): Buffer {
  const bytes = Buffer.from(text, "base64");
  if (text === "" || bytes.toString("base64") !== text) throw refuse(`${what} is not base64`);
  return bytes;
}

/** Reads the SSH wire format (RFC 4251): length-prefixed strings. */
class WireReader {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}

  string(): Buffer {
    if (this.offset + 4 > this.bytes.length) throw refuse("the key blob is truncated");
    const length = this.bytes.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (length > this.bytes.length - start) throw refuse("the key blob is truncated");
    this.offset = start + length;
    return this.bytes.subarray(start, this.offset);
  }

  end() {
    if (this.offset !== this.bytes.length) throw refuse("the key blob has trailing bytes");
  }
}

function bitLength(mpint: Buffer): number {
  const first = mpint.findIndex((byte) => byte !== 0);
  if (first === -1) return 0;
  return (mpint.length - first - 1) * 8 + (32 - Math.clz32(mpint[first] ?? 0));
}

/** Checks the fields after the type name, per key type. */
function checkKeyFields(type: string, reader: WireReader) {
  if (type === "ssh-ed25519") {
    if (reader.string().length !== 32) throw refuse("an ed25519 key has 32 bytes");
  } else if (type === "ssh-rsa") {
    const exponent = reader.string();
    const modulus = reader.string();
    if (bitLength(exponent) === 0) throw refuse("the RSA exponent is zero");
    if (bitLength(modulus) < minRsaBits) throw refuse(`RSA keys need at least ${minRsaBits} bits`);
  } else {
    const curve = type.slice("ecdsa-sha2-".length);
    if (reader.string().toString("latin1") !== curve) throw refuse("the ECDSA curve does not match the key type");
    const point = reader.string();
    if (point.length !== ecdsaPointBytes[curve] || point[0] !== 4) throw refuse(`not a ${curve} public point`);
  }
  reader.end();
}

const sshKeyTypes = [
  "ssh-rsa",
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
] as const;

/**
 * Checks the `data` of a public key, base64 of one OpenSSH line `TYPE BLOB [COMMENT]`, and returns
 * its fingerprint: the MD5 of the blob as 16 colon-separated lower-case hex pairs, as
 * `ssh-keygen -l -E md5` shows it. Only the types above are accepted, and the type inside the
 * blob must be the line's; anything else (options before the type, several lines, a malformed
 * blob) is a 400 on `data`.
 */
export function sshKeyFingerprint(data: string): string {
  const line = strictBase64(data, "data").toString("utf8").trim();
  if (/[\r\n]/.test(line)) throw refuse("expected one key line");
  const [type = "", encoded = ""] = line.split(/[ \t]+/);
  if (!(sshKeyTypes as readonly string[]).includes(type)) {
    throw refuse(`expected an OpenSSH public key line of type ${sshKeyTypes.join(", ")}`);
  }
  const blob = strictBase64(encoded, "the key blob");
  const reader = new WireReader(blob);
  if (reader.string().toString("latin1") !== type) throw refuse("the key blob's type does not match the line's");
  checkKeyFields(type, reader);
  return md5Fingerprint(blob);
}

/** The MD5 of a key's wire blob as 16 colon-separated hex pairs (`ssh-keygen -l -E md5`). */
export const md5Fingerprint = (blob: Buffer) =>
  createHash("md5")
    .update(blob)
    .digest("hex")
    .replace(/(..)(?!$)/g, "$1:");

/** The wire blob of a stored key's `data` (checked when it was stored). */
export const keyBlobOfData = (data: string) =>
  Buffer.from(
    Buffer.from(data, "base64")
      .toString("utf8")
      .trim()
      .split(/[ \t]+/)[1] ?? "",
    "base64",
  );
