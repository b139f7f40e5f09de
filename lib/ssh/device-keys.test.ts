import { createPublicKey, generateKeyPairSync } from "node:crypto";
import ssh2, { type ParsedKey } from "ssh2";
import { describe, expect, it } from "vitest";
import { ed25519KeyPair } from "../../testing/ssh-keys";
import { isValidSignature, sshKeyFromPem, sshKeyFromWire } from "./device-keys";

const parsed = (text: string) => ssh2.utils.parseKey(text) as ParsedKey;

describe("sshKeyFromPem", () => {
  it("gives a device's RSA key (SPKI PEM) in the wire format SSH signs with", () => {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const privateKey = parsed(pair.privateKey.export({ type: "pkcs1", format: "pem" }).toString());
    const publicKey = sshKeyFromPem(pair.publicKey.export({ type: "spki", format: "pem" }).toString());
    expect(publicKey?.getPublicSSH().equals(privateKey.getPublicSSH())).toBe(true);

    const data = Buffer.from("session data");
    const signature = privateKey.sign(data, "sha256") as Buffer;
    expect(publicKey && isValidSignature(publicKey, data, signature, "sha256")).toBe(true);
    const other = parsed(
      generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs1", format: "pem" })
        .toString(),
    );
    expect(publicKey && isValidSignature(publicKey, data, other.sign(data, "sha256") as Buffer, "sha256")).toBe(false);
  });

  it("reads ed25519 keys, and refuses what is not a public key", () => {
    const pair = ed25519KeyPair();
    const publicKey = parsed(pair.public);
    const pem = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
    expect(sshKeyFromPem(pem)?.type).toBe("ssh-ed25519");
    expect(sshKeyFromWire("ssh-ed25519", publicKey.getPublicSSH())?.getPublicSSH()).toEqual(publicKey.getPublicSSH());
    expect(sshKeyFromPem("not a key")).toBeUndefined();
  });

  it("checks ed25519 signatures with the key's 32 bytes", () => {
    const signer = parsed(ed25519KeyPair().private);
    // The PEM an agent sends for this key: OpenSSL writes it from the 32 bytes that end its wire form.
    const x = signer.getPublicSSH().subarray(-32).toString("base64url");
    const pem = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }).export({
      type: "spki",
      format: "pem",
    });
    const key = sshKeyFromPem(pem.toString());
    expect(key?.getPublicSSH().equals(signer.getPublicSSH())).toBe(true);
    const data = Buffer.from("session data");
    const signature = signer.sign(data) as Buffer;
    expect(key && isValidSignature(key, data, signature)).toBe(true);
    expect(key && isValidSignature(key, Buffer.from("other data"), signature)).toBe(false);
    expect(key && isValidSignature(key, data, signature.subarray(1))).toBe(false);
    expect(key && isValidSignature(key, data, parsed(ed25519KeyPair().private).sign(data) as Buffer)).toBe(false);
  });
});
