import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSshKey } from "@/lib/ssh/device-keys";
import { ed25519KeyPair } from "@/testing/ssh-keys";
import { loadDeviceKey, ServerKeyPin } from "./identity";

let dataDir = "";
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
const newDataDir = () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-identity-"));
  return dataDir;
};

const blobOf = (line: string) => Buffer.from(line.split(" ")[1] ?? "", "base64");

describe("device key", () => {
  it("is created once, owner-only, and kept", () => {
    const directory = newDataDir();
    const first = loadDeviceKey(directory);
    expect(statSync(path.join(directory, "agent.key")).mode & 0o777).toBe(0o600);
    expect(first.publicPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(first.parsed.type).toBe("ssh-rsa");
    expect(loadDeviceKey(directory).publicPem).toBe(first.publicPem);
  });

  it("can be given as a PKCS#8 file, and must be RSA", () => {
    const directory = newDataDir();
    const file = path.join(directory, "given.pem");
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(file, privateKey.export({ type: "pkcs8", format: "pem" }));
    expect(loadDeviceKey(directory, file).publicPem).toBe(publicKey.export({ type: "spki", format: "pem" }));
    writeFileSync(file, generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }));
    expect(() => loadDeviceKey(directory, file)).toThrow(/RSA/);
  });
});

describe("server host key pin", () => {
  it("trusts the first key, keeps it on disk and refuses any other", () => {
    const directory = newDataDir();
    const [first, second] = [ed25519KeyPair(), ed25519KeyPair()];
    const pin = new ServerKeyPin(directory);
    expect(pin.matches(blobOf(first.public))).toBe(false);
    expect(pin.verify(blobOf(first.public))).toBe(true);
    expect(pin.verify(blobOf(second.public))).toBe(false);
    expect(readFileSync(path.join(directory, "server_host_key.pub"), "utf8")).toBe(
      `${first.public.split(" ").slice(0, 2).join(" ")}\n`,
    );
    const reloaded = new ServerKeyPin(directory);
    expect(reloaded.verify(blobOf(second.public))).toBe(false);
    expect(reloaded.matches(blobOf(first.public))).toBe(true);
  });

  it("takes the key up front instead", () => {
    const [given, other] = [ed25519KeyPair(), ed25519KeyPair()];
    const pin = new ServerKeyPin(newDataDir(), given.public);
    expect(pin.verify(blobOf(other.public))).toBe(false);
    expect(pin.verify(blobOf(given.public))).toBe(true);
  });
});

// ssh2 is patched (patches/) to sign and check with key objects it decodes once, kept on the
// parsed private key and, for public keys, by PEM in a bounded cache: each must stay the key it
// was made from, also once the cache has turned over.
describe("ssh2's signatures with key objects (patched)", () => {
  const data = Buffer.from("exchange hash");

  it("signs again and again with one parsed key, of each type", () => {
    const device = loadDeviceKey(newDataDir());
    for (const parsed of [device.parsed, parseSshKey(ed25519KeyPair().private)]) {
      const publicKey = parseSshKey(`${parsed.type} ${parsed.getPublicSSH().toString("base64")}`);
      const signatures = [parsed.sign(data), parsed.sign(data)];
      for (const signature of signatures) {
        if (signature instanceof Error) throw signature;
        expect(publicKey.verify(data, signature)).toBe(true);
        expect(publicKey.verify(Buffer.from("another hash"), signature)).toBe(false);
      }
    }
  });

  it("checks each signature against its own key, more keys than the cache holds, then the first again", () => {
    const keys = Array.from({ length: 70 }, () => {
      const pair = ed25519KeyPair();
      return { privateKey: parseSshKey(pair.private), publicKey: parseSshKey(pair.public) };
    });
    const signatures = keys.map((key) => key.privateKey.sign(data) as Buffer);
    keys.forEach((key, index) => {
      expect(key.publicKey.verify(data, signatures[index] as Buffer)).toBe(true);
      expect(key.publicKey.verify(data, signatures[(index + 1) % keys.length] as Buffer)).toBe(false);
    });
    expect(keys[0]?.publicKey.verify(data, signatures[0] as Buffer)).toBe(true);
    expect(keys[0]?.publicKey.verify(data, signatures[1] as Buffer)).toBe(false);
  });
});
