import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The key is generated into this process's DATA_DIR on first use.
const dataDir = mkdtempSync(path.join(tmpdir(), "das-box-"));
process.env.DATA_DIR = dataDir;
delete process.env.MFA_ENCRYPTION_KEY;
const { openSecret, sealSecret } = await import("./secret-box");

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("secret box (AES-256-GCM)", () => {
  const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

  it("opens what it sealed, for the same owner only, and never stores the clear text", () => {
    const sealed = sealSecret(secret, "user-1");
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(secret);
    expect(sealSecret(secret, "user-1")).not.toBe(sealed);
    expect(openSecret(sealed, "user-1")).toBe(secret);
    expect(() => openSecret(sealed, "user-2")).toThrow();
  });

  it("refuses altered text", () => {
    const [version, iv, tag, body = ""] = sealSecret(secret, "user-1").split(".");
    const flipped = `${body[0] === "A" ? "B" : "A"}${body.slice(1)}`;
    expect(() => openSecret([version, iv, tag, flipped].join("."), "user-1")).toThrow();
    expect(() => openSecret(`v2.${iv}.${tag}.${body}`, "user-1")).toThrow();
  });

  it("keeps its generated key in DATA_DIR/mfa.key (32 bytes)", () => {
    sealSecret(secret, "user-1");
    const key = readFileSync(path.join(dataDir, "mfa.key"), "utf8").trim();
    expect(Buffer.from(key, "base64url")).toHaveLength(32);
  });
});
