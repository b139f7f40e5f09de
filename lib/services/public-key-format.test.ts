import { createHash, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base64Of, randomEd25519Line, sshKeygen, wireString } from "@/testing/ssh-keys";
import { ValidationError } from "../errors";
import { sshKeyFingerprint } from "./public-key-format";

const ed25519Blob = (pk = Buffer.alloc(32, 7)) => Buffer.concat([wireString("ssh-ed25519"), wireString(pk)]);
const lineOf = (type: string, blob: Buffer, comment = "x@y") => `${type} ${blob.toString("base64")} ${comment}`;

function rsaBlob(bits: number) {
  const jwk = generateKeyPairSync("rsa", { modulusLength: bits }).publicKey.export({ format: "jwk" });
  // mpints are signed: a leading zero keeps the modulus positive.
  const mpint = (value = "") => wireString(Buffer.concat([Buffer.alloc(1), Buffer.from(value, "base64url")]));
  return Buffer.concat([wireString("ssh-rsa"), mpint(jwk.e), mpint(jwk.n)]);
}

function refusal(data: string): string {
  try {
    sshKeyFingerprint(data);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues;
    expect(issues.map((issue) => issue.field)).toEqual(["data"]);
    return issues[0]?.message ?? "";
  }
  throw new Error("accepted");
}

describe("sshKeyFingerprint", () => {
  it.each([
    ["ed25519", undefined],
    ["rsa", 2048],
    ["ecdsa", 256],
    ["ecdsa", 384],
    ["ecdsa", 521],
  ] as const)("accepts a real %s key (%s bits) with the fingerprint ssh-keygen prints", async (type, bits) => {
    const key = await sshKeygen(type, bits);
    expect(key.fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect(sshKeyFingerprint(key.data)).toBe(key.fingerprint);
  });

  it("ignores the comment and surrounding whitespace, and needs none", () => {
    const blob = ed25519Blob();
    const expected = createHash("md5").update(blob).digest("hex").match(/../g)?.join(":");
    expect(sshKeyFingerprint(base64Of(`ssh-ed25519 ${blob.toString("base64")}`))).toBe(expected);
    expect(sshKeyFingerprint(base64Of(`  ${lineOf("ssh-ed25519", blob, "a comment with spaces")}\r\n`))).toBe(expected);
  });

  it("gives different keys different fingerprints", () => {
    expect(sshKeyFingerprint(base64Of(randomEd25519Line()))).not.toBe(sshKeyFingerprint(base64Of(randomEd25519Line())));
  });

  const dsaBlob = Buffer.concat(["ssh-dss", "p", "q", "g", "y"].map((part) => wireString(part)));
  const ecdsaBlob = (curve: string, point: Buffer) =>
    Buffer.concat([wireString("ecdsa-sha2-nistp256"), wireString(curve), wireString(point)]);
  const point = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]);

  it.each([
    ["data that is not base64", "not base64!"],
    ["base64 with junk inside", `${base64Of(randomEd25519Line()).slice(0, 20)}*${base64Of("x")}`],
    ["an empty line", base64Of("   ")],
    ["a DSA key", base64Of(lineOf("ssh-dss", dsaBlob))],
    ["an unknown type", base64Of(lineOf("ssh-foo", ed25519Blob()))],
    ["authorized_keys options before the type", base64Of(`no-pty ${lineOf("ssh-ed25519", ed25519Blob())}`)],
    ["two key lines", base64Of(`${randomEd25519Line()}\n${randomEd25519Line()}`)],
    ["a blob that is not base64", base64Of("ssh-ed25519 AAAA%%%% x@y")],
    ["no blob", base64Of("ssh-ed25519")],
    ["a blob of another type than the line's", base64Of(lineOf("ssh-rsa", ed25519Blob()))],
    ["a truncated blob", base64Of(lineOf("ssh-ed25519", ed25519Blob().subarray(0, 30)))],
    ["a blob with trailing bytes", base64Of(lineOf("ssh-ed25519", Buffer.concat([ed25519Blob(), Buffer.from([0])])))],
    ["an ed25519 key of 31 bytes", base64Of(lineOf("ssh-ed25519", ed25519Blob(Buffer.alloc(31, 1))))],
    ["a length prefix beyond the blob", base64Of(lineOf("ssh-ed25519", Buffer.from([0xff, 0xff, 0xff, 0xff, 1])))],
    [
      "an ECDSA key on another curve than its type",
      base64Of(lineOf("ecdsa-sha2-nistp256", ecdsaBlob("nistp384", point))),
    ],
    [
      "an ECDSA point of the wrong size",
      base64Of(lineOf("ecdsa-sha2-nistp256", ecdsaBlob("nistp256", point.subarray(1)))),
    ],
    ["a compressed ECDSA point", base64Of(lineOf("ecdsa-sha2-nistp256", ecdsaBlob("nistp256", Buffer.alloc(65, 2))))],
    ["a 512-bit RSA key", base64Of(lineOf("ssh-rsa", rsaBlob(512)))],
  ])("refuses %s as a 400 on data", (_label, data) => {
    expect(refusal(data)).not.toBe("");
  });

  it("accepts a 1024-bit RSA key, the smallest", () => {
    expect(sshKeyFingerprint(base64Of(lineOf("ssh-rsa", rsaBlob(1024))))).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
  });
});
