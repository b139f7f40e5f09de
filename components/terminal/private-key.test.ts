import { execFileSync } from "node:child_process";
import { createPublicKey, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ssh2 from "ssh2";
import { afterAll, describe, expect, it } from "vitest";
import { KeyProblem, readPrivateKey } from "./private-key";

// The browser's key login, run on Node's WebCrypto against keys made by OpenSSH's ssh-keygen:
// the fingerprint must be the one ssh-keygen prints, the signature one the public key verifies.

const dir = mkdtempSync(path.join(tmpdir(), "das-browser-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keygen(name: string, args: string[]) {
  const file = path.join(dir, name);
  execFileSync("ssh-keygen", ["-q", "-f", file, "-N", "", "-C", "test", ...args]);
  const md5 = execFileSync("ssh-keygen", ["-l", "-E", "md5", "-f", `${file}.pub`], { encoding: "utf8" });
  return { file, fingerprint: /MD5:(\S+)/.exec(md5)?.[1] ?? "", publicLine: readFileSync(`${file}.pub`, "utf8") };
}

function publicKeyObject(publicLine: string) {
  const parsed = ssh2.utils.parseKey(publicLine);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Error("public key does not parse");
  return createPublicKey(key.getPublicPEM());
}

describe("key login in the browser", () => {
  it("signs the user name with an ed25519 key in the OpenSSH format", async () => {
    const key = keygen("ed", ["-t", "ed25519"]);
    const signer = await readPrivateKey(readFileSync(key.file, "utf8"));
    expect(signer.fingerprint).toBe(key.fingerprint);
    const signature = Buffer.from(await signer.sign("pi"), "base64");
    expect(signature).toHaveLength(64);
    expect(verify(null, Buffer.from("pi"), publicKeyObject(key.publicLine), signature)).toBe(true);
  });

  it("signs with RSA (PKCS#1 v1.5, SHA-1) from the OpenSSH format and from PKCS#1 PEM", async () => {
    for (const format of ["RFC4716", "PEM"]) {
      const key = keygen(`rsa-${format}`, ["-t", "rsa", "-b", "2048", "-m", format]);
      const text = readFileSync(key.file, "utf8");
      expect(text).toContain(format === "PEM" ? "BEGIN RSA PRIVATE KEY" : "BEGIN OPENSSH PRIVATE KEY");
      const signer = await readPrivateKey(text);
      expect(signer.fingerprint).toBe(key.fingerprint);
      const signature = Buffer.from(await signer.sign("root"), "base64");
      expect(verify("sha1", Buffer.from("root"), publicKeyObject(key.publicLine), signature)).toBe(true);
    }
  });

  it("refuses a public key, a key with a passphrase and text that is no key, with plain words", async () => {
    const key = keygen("pub", ["-t", "ed25519"]);
    await expect(readPrivateKey(key.publicLine)).rejects.toThrow(/public key/);
    const locked = path.join(dir, "locked");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-f", locked, "-N", "secret-phrase"]);
    await expect(readPrivateKey(readFileSync(locked, "utf8"))).rejects.toThrow(/passphrase/);
    await expect(readPrivateKey("hello")).rejects.toBeInstanceOf(KeyProblem);
  });
});
