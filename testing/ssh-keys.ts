import { execFile } from "node:child_process";
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import ssh2 from "ssh2";

const run = promisify(execFile);

/** An OpenSSH public key line, the `data` the API takes (base64 of the line) and its MD5 fingerprint. */
export type TestSshKey = { line: string; data: string; fingerprint: string };

export const base64Of = (text: string) => Buffer.from(text).toString("base64");

/**
 * A key made by the real `ssh-keygen`, with the fingerprint `ssh-keygen -l -E md5` prints. Run
 * without blocking: a 3072-bit RSA key takes seconds on a busy machine, and a blocked event loop
 * would then send the next request on a keep-alive connection the server has closed meanwhile.
 */
export async function sshKeygen(type: "ed25519" | "rsa" | "ecdsa", bits?: number): Promise<TestSshKey> {
  const directory = mkdtempSync(path.join(tmpdir(), "das-ssh-"));
  try {
    const file = path.join(directory, "key");
    const size = bits === undefined ? [] : ["-b", String(bits)];
    await run("ssh-keygen", ["-q", "-t", type, ...size, "-N", "", "-C", "test@example", "-f", file]);
    const line = readFileSync(`${file}.pub`, "utf8");
    const { stdout: printed } = await run("ssh-keygen", ["-l", "-E", "md5", "-f", `${file}.pub`]);
    const fingerprint = /MD5:([0-9a-f:]{47})/.exec(printed)?.[1];
    if (!fingerprint) throw new Error(`no fingerprint in: ${printed}`);
    return { line, data: base64Of(line), fingerprint };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** An SSH wire-format string (RFC 4251): 4-byte length, then the bytes. */
export function wireString(value: string | Buffer): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A fresh ed25519 key line without spawning ssh-keygen, for tests that need many keys. */
export function randomEd25519Line(comment = "test@example"): string {
  const jwk = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
  const blob = Buffer.concat([wireString("ssh-ed25519"), wireString(Buffer.from(jwk.x ?? "", "base64url"))]);
  return `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
}

/**
 * An ed25519 key pair in OpenSSH format for tests and benchmarks. ssh2's generator now and then
 * (about 1 in 300) writes a private key its own parser rejects: such keys are thrown away.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519");
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

/** An SSH mpint (RFC 4251) of unsigned big-endian bytes: a leading zero keeps it positive. */
const wireMpint = (bytes: Buffer) => wireString((bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes);

/**
 * A key pair as ShellHub's UI uses it for the browser terminal: the public key as the API takes
 * it, its MD5 fingerprint as the UI formats it (sshpk's colon-separated hex), and the signature
 * the UI makes of a local user name in the browser (RSA: PKCS#1 v1.5 with SHA-1; ed25519: raw;
 * both base64).
 */
export function browserSigningKey(type: "ed25519" | "rsa") {
  const pair = type === "rsa" ? generateKeyPairSync("rsa", { modulusLength: 2048 }) : generateKeyPairSync("ed25519");
  const jwk = pair.publicKey.export({ format: "jwk" });
  const fromJwk = (value: string | undefined) => Buffer.from(value ?? "", "base64url");
  const blob =
    type === "rsa"
      ? Buffer.concat([wireString("ssh-rsa"), wireMpint(fromJwk(jwk.e)), wireMpint(fromJwk(jwk.n))])
      : Buffer.concat([wireString("ssh-ed25519"), wireString(fromJwk(jwk.x))]);
  const line = `ssh-${type} ${blob.toString("base64")} browser@example`;
  const md5 = createHash("md5").update(blob).digest("hex");
  return {
    line,
    data: base64Of(line),
    fingerprint: md5.replace(/(..)(?!$)/g, "$1:"),
    signUserName: (name: string) =>
      sign(type === "rsa" ? "sha1" : null, Buffer.from(name, "utf8"), pair.privateKey).toString("base64"),
  };
}
