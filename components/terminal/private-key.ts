import { md5Fingerprint } from "@/lib/ssh-public-key";

/**
 * Key login without sending the key: the browser reads the private key, and the server gets only
 * the public key's MD5 fingerprint and a signature of the device user's name (the protocol of
 * `POST /ws/ssh`, docs/compatibility.md). Ed25519 signs the name itself; RSA signs it with
 * RSASSA-PKCS1-v1_5 and SHA-1. Keys in the OpenSSH format and RSA keys in PKCS#1 PEM are read;
 * a key with a passphrase is refused with a plain message.
 */

export class KeyProblem extends Error {}

type Signer = { fingerprint: string; sign: (text: string) => Promise<string> };

const base64Bytes = (text: string) => Uint8Array.from(atob(text.replace(/\s+/g, "")), (char) => char.charCodeAt(0));
const bytesBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

function pemBody(text: string, label: string): Uint8Array | undefined {
  const match = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(text);
  return match?.[1] ? base64Bytes(match[1]) : undefined;
}

/** Reads the length-prefixed fields of the SSH wire format. */
class SshReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}
  uint32() {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, 4);
    this.offset += 4;
    return view.getUint32(0);
  }
  string(): Uint8Array {
    const length = this.uint32();
    if (this.offset + length > this.bytes.length) throw new KeyProblem("The key is damaged: it ends too early.");
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
  text() {
    return new TextDecoder().decode(this.string());
  }
  fixed(length: number) {
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
}

const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

// DER, as much of it as a PKCS#8 private key needs.
function derLength(length: number) {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}
const der = (tag: number, content: Uint8Array) => concat(Uint8Array.of(tag), derLength(content.length), content);
const derInteger = (unsigned: Uint8Array) => {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start += 1;
  const trimmed = unsigned.subarray(start);
  return der(0x02, (trimmed[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed);
};
const bigOf = (bytes: Uint8Array) =>
  BigInt(`0x${[...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("") || "0"}`);
const bytesOf = (value: bigint) => {
  const hex = value.toString(16);
  return Uint8Array.from((hex.length % 2 ? `0${hex}` : hex).match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
};

const rsaAlgorithmId = der(
  0x30,
  concat(Uint8Array.of(0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01), Uint8Array.of(0x05, 0x00)),
);
const ed25519Pkcs8Prefix = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);

function rsaPkcs8(pkcs1: Uint8Array) {
  return der(0x30, concat(derInteger(Uint8Array.of(0)), rsaAlgorithmId, der(0x04, pkcs1)));
}

async function rsaSigner(pkcs8: Uint8Array<ArrayBuffer>, publicBlob: Uint8Array): Promise<Signer> {
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, [
    "sign",
  ]);
  return {
    fingerprint: md5Fingerprint(publicBlob),
    sign: async (text) =>
      bytesBase64(new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(text)))),
  };
}

const sshString = (bytes: Uint8Array) => {
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, bytes.length);
  return concat(length, bytes);
};
const sshMpint = (bytes: Uint8Array) => sshString((bytes[0] ?? 0) & 0x80 ? concat(Uint8Array.of(0), bytes) : bytes);

/** Reads the modulus and exponent of a PKCS#1 RSA private key (DER), for the public blob. */
function pkcs1PublicBlob(pkcs1: Uint8Array) {
  let offset = 0;
  const read = () => {
    const tag = pkcs1[offset++];
    let length = pkcs1[offset++] ?? 0;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let index = 0; index < count; index += 1) length = (length << 8) | (pkcs1[offset++] ?? 0);
    }
    return { tag, start: offset, length };
  };
  const sequence = read();
  if (sequence.tag !== 0x30) throw new KeyProblem("This is not an RSA private key.");
  const integers: Uint8Array[] = [];
  for (let index = 0; index < 3; index += 1) {
    const field = read();
    integers.push(pkcs1.subarray(field.start, field.start + field.length));
    offset = field.start + field.length;
  }
  const [, modulus = new Uint8Array(), exponent = new Uint8Array()] = integers;
  return concat(sshString(new TextEncoder().encode("ssh-rsa")), sshMpint(exponent), sshMpint(modulus));
}

async function openSshSigner(body: Uint8Array): Promise<Signer> {
  const magic = new TextEncoder().encode("openssh-key-v1\0");
  if (!magic.every((byte, index) => body[index] === byte))
    throw new KeyProblem("The key is not in a format this page reads.");
  const reader = new SshReader(body.subarray(magic.length));
  const cipher = reader.text();
  reader.text();
  reader.string();
  if (cipher !== "none")
    throw new KeyProblem(
      "This key has a passphrase, which this page cannot open: use the password, or ssh from your terminal.",
    );
  if (reader.uint32() !== 1) throw new KeyProblem("The file holds several keys: paste one.");
  const publicBlob = reader.string();
  const secret = new SshReader(reader.string());
  // Two equal random numbers open the private section: unequal ones mean a wrong passphrase or damage.
  const [check, again] = [secret.uint32(), secret.uint32()];
  if (check !== again) throw new KeyProblem("The key is damaged.");
  const type = secret.text();
  if (type === "ssh-ed25519") {
    secret.string();
    const seed = secret.string().subarray(0, 32);
    const key = await crypto.subtle.importKey("pkcs8", concat(ed25519Pkcs8Prefix, seed), { name: "Ed25519" }, false, [
      "sign",
    ]);
    return {
      fingerprint: md5Fingerprint(publicBlob),
      sign: async (text) =>
        bytesBase64(new Uint8Array(await crypto.subtle.sign("Ed25519", key, new TextEncoder().encode(text)))),
    };
  }
  if (type === "ssh-rsa") {
    const [n, e, d, iqmp, p, q] = [
      secret.string(),
      secret.string(),
      secret.string(),
      secret.string(),
      secret.string(),
      secret.string(),
    ];
    const [bigD, bigP, bigQ] = [bigOf(d), bigOf(p), bigOf(q)];
    const pkcs1 = der(
      0x30,
      concat(
        ...[Uint8Array.of(0), n, e, d, p, q, bytesOf(bigD % (bigP - 1n)), bytesOf(bigD % (bigQ - 1n)), iqmp].map(
          derInteger,
        ),
      ),
    );
    return rsaSigner(rsaPkcs8(pkcs1), publicBlob);
  }
  throw new KeyProblem(`Keys of type ${type} cannot sign in this page: use an ed25519 or RSA key.`);
}

/** The signer of a pasted or loaded private key; a clear `KeyProblem` for anything else. */
export async function readPrivateKey(text: string): Promise<Signer> {
  if (/^(ssh-|ecdsa-)\S+ [A-Za-z0-9+/=]+/.test(text.trim()))
    throw new KeyProblem("This is a public key: the login needs the private key (it stays in this browser).");
  if (text.includes("ENCRYPTED"))
    throw new KeyProblem(
      "This key has a passphrase, which this page cannot open: use the password, or ssh from your terminal.",
    );
  const openSsh = pemBody(text, "OPENSSH PRIVATE KEY");
  if (openSsh) return openSshSigner(openSsh);
  const pkcs1 = pemBody(text, "RSA PRIVATE KEY");
  if (pkcs1) return rsaSigner(rsaPkcs8(pkcs1), pkcs1PublicBlob(pkcs1));
  throw new KeyProblem("This does not look like a private key: paste the whole file, with its BEGIN and END lines.");
}
