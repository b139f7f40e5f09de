import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { derOfPem, ed25519OfSpki, publicKeyObject } from "./public-key";

const spkiPem = (key: ReturnType<typeof generateKeyPairSync>["publicKey"]) =>
  key.export({ type: "spki", format: "pem" }).toString();

describe("publicKeyObject", () => {
  it("reads an ed25519 key from its 32 bytes: the same key OpenSSL reads from the PEM", () => {
    const pem = spkiPem(generateKeyPairSync("ed25519").publicKey);
    const key = publicKeyObject(pem);
    expect(key.asymmetricKeyType).toBe("ed25519");
    expect(key.equals(createPublicKey(pem))).toBe(true);
    expect(ed25519OfSpki(derOfPem(pem))).toHaveLength(32);
  });

  it("reads other keys through OpenSSL, and throws on what is not a key", () => {
    const rsa = spkiPem(generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey);
    expect(ed25519OfSpki(derOfPem(rsa))).toBeUndefined();
    expect(publicKeyObject(rsa).asymmetricKeyType).toBe("rsa");
    const ed448 = spkiPem(generateKeyPairSync("ed448").publicKey);
    expect(publicKeyObject(ed448).asymmetricKeyType).toBe("ed448");
    expect(() => publicKeyObject("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")).toThrow();
  });
});
