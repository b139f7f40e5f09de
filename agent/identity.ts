import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ParsedKey, PublicKeyAuthMethod } from "ssh2";
import ssh2 from "ssh2";
import { log } from "../lib/log";
import { loadOrCreateFile } from "../lib/secrets";

/** The device's key pair: the private key as PKCS#1 PEM (what ssh2 reads), the public one as PEM SPKI (what the API takes). */
export type DeviceKey = { privatePem: string; publicPem: string; parsed: ParsedKey };

function parseOrThrow(key: string, what: string): ParsedKey {
  const parsed = ssh2.utils.parseKey(key);
  if (parsed instanceof Error) throw new Error(`${what}: ${parsed.message}`);
  return Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
}

/**
 * The device key from `file`, or from DATA_DIR/agent.key, created (RSA 2048, mode 0600) on first
 * start. PKCS#8 keys are read too.
 */
export function loadDeviceKey(dataDir: string, file?: string): DeviceKey {
  const pem = file
    ? readFileSync(file, "utf8")
    : loadOrCreateFile(dataDir, "agent.key", () => {
        log.info("creating the device key", { file: path.resolve(dataDir, "agent.key") });
        const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
        return privateKey.export({ type: "pkcs1", format: "pem" }).toString().trim();
      });
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "rsa") throw new Error("the device key must be an RSA key");
  const privatePem = key.export({ type: "pkcs1", format: "pem" }).toString();
  return {
    privatePem,
    publicPem: createPublicKey(key).export({ type: "spki", format: "pem" }).toString(),
    parsed: parseOrThrow(privatePem, "the device key"),
  };
}

/**
 * Logs in to an SSH server with a key parsed once: ssh2 keeps the key object it signs with on the
 * parsed key (patches/), where a key given to `connect` as text is parsed and decoded again at
 * every connection.
 */
export const publicKeyAuth = (username: string, key: ParsedKey): PublicKeyAuthMethod => ({
  type: "publickey",
  username,
  key,
});

/** An SSH public key blob as one OpenSSH line, `TYPE BASE64`. */
export function opensshLine(blob: Buffer): string {
  const typeLength = blob.readUInt32BE(0);
  return `${blob.subarray(4, 4 + typeLength).toString()} ${blob.toString("base64")}`;
}

/**
 * The server's SSH host key, trusted on first use: kept in DATA_DIR/server_host_key.pub (or given
 * up front), and any other key is refused afterwards. The same key is the only public key the
 * device's SSH server accepts (the gateway logs in with it).
 */
export class ServerKeyPin {
  private pinned: ParsedKey | undefined;
  private readonly file: string;

  constructor(dataDir: string, given?: string) {
    this.file = path.resolve(dataDir, "server_host_key.pub");
    let line = given?.trim();
    if (!line) {
      try {
        line = readFileSync(this.file, "utf8").trim();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    if (line) this.pinned = parseOrThrow(line, "the pinned server host key");
  }

  get key(): ParsedKey | undefined {
    return this.pinned;
  }

  /** Whether `blob` is the pinned key; pins it when nothing is pinned yet. */
  verify(blob: Buffer): boolean {
    if (this.pinned) return this.pinned.getPublicSSH().equals(blob);
    const line = opensshLine(blob);
    this.pinned = parseOrThrow(line, "the server host key");
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${line}\n`, { mode: 0o600 });
    chmodSync(this.file, 0o600);
    log.info("pinned the server's host key", { key: line, file: this.file });
    return true;
  }

  /** Whether `blob` is the pinned key (never pins). */
  matches(blob: Buffer): boolean {
    return this.pinned?.getPublicSSH().equals(blob) === true;
  }
}
