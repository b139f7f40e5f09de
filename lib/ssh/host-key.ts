import { createPrivateKey, sign } from "node:crypto";
import ssh2, { type ParsedKey } from "ssh2";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";
import { loadOrCreateFile } from "../secrets";
import { parseSshKey } from "./device-keys";

const hostKeyFile = "ssh_host_ed25519_key";

/**
 * The gateway's host key (OpenSSH ed25519 private key), generated into DATA_DIR on first start
 * and kept: the SSH gateway and the tunnel endpoint present it, agents pin it, and the gateway
 * logs into devices with it. It is never the API's signing key.
 */
export function hostKey(): string {
  return processSingleton("host key", () => loadOrCreateFile(getConfig().DATA_DIR, hostKeyFile, generateHostKey));
}

// ssh2's generator writes an ed25519 key that its own parser refuses about once in 270 tries:
// a host key is kept for good, so only one that parses back is accepted.
function generateHostKey(): string {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519", { comment: "device-access-gateway" });
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair.private;
  }
}

/**
 * The host key as ssh2 takes it, signing with a key object made once: ssh2's own `sign` parses
 * the PEM again for every signature (about 340 µs against 27 µs for one ed25519 signature), and
 * every SSH connection the gateway or the tunnel endpoint accepts is one.
 */
export function parsedHostKey(): ParsedKey {
  return processSingleton("parsed host key", () => {
    const parsed = parseSshKey(hostKey());
    // An ed25519 signature names no hash; a key of another type put in the file keeps ssh2's own
    // signing, which picks the hash the key exchange asks for.
    if (parsed.type !== "ssh-ed25519") return parsed;
    const privateKey = createPrivateKey(parsed.getPrivatePEM());
    const signWithKeyObject = (data: Buffer) => sign(null, data, privateKey);
    return Object.create(parsed, { sign: { value: signWithKeyObject } }) as ParsedKey;
  });
}

/** The host key's public line (`ssh-ed25519 AAAA...`), as agents take it with --server-host-key. */
export function hostPublicLine(): string {
  const key = parsedHostKey();
  return `${key.type} ${key.getPublicSSH().toString("base64")}`;
}
