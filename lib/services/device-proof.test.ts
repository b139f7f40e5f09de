import { generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { deviceProofText } from "../protocol";
import type { AuthDeviceInput } from "../schemas/agent";
import { isProvenCall, keyDigestOf } from "./device-proof";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ed25519 = generateKeyPairSync("ed25519");
const pemOf = (pair: typeof rsa) => pair.publicKey.export({ type: "spki", format: "pem" }).toString();

describe("keyDigestOf", () => {
  it("gives what the migration computed for devices stored before it, for any line endings", async () => {
    const migration = readFileSync(path.join(process.cwd(), "models/migrations/0007_device_key_proof.sql"), "utf8");
    const update = migration.split("--> statement-breakpoint").find((part) => part.includes('UPDATE "devices"'));
    const scope = await seedScope(db);
    const pems = [pemOf(rsa), pemOf(ed25519), pemOf(ed25519).replaceAll("\n", "\r\n")];
    const uids = [];
    for (const pem of pems) {
      const uid = await insertDevice(db, scope.tenantId);
      await db.update(devices).set({ publicKey: pem, keyDigest: "" }).where(eq(devices.uid, uid));
      uids.push(uid);
    }
    await db.execute(sql.raw(update?.replace(/^--.*$/m, "") ?? ""));
    for (const [index, uid] of uids.entries()) {
      const [row] = await db.select({ keyDigest: devices.keyDigest }).from(devices).where(eq(devices.uid, uid));
      expect(row?.keyDigest).toBe(keyDigestOf(pems[index] ?? ""));
    }
    expect(keyDigestOf(pems[1] ?? "")).toBe(keyDigestOf(pems[2] ?? ""));
    expect(keyDigestOf(pems[0] ?? "")).not.toBe(keyDigestOf(pems[1] ?? ""));
  });
});

describe("isProvenCall", () => {
  const body = (pair: typeof rsa, hostname: string): AuthDeviceInput => ({
    info: { id: "debian", pretty_name: "Debian", version: "1", arch: "x86_64", platform: "native" },
    sessions: [],
    hostname,
    identity: { mac: "02:00:00:00:00:01" },
    public_key: pemOf(pair),
    tenant_id: "3f2b8c1e-5a4d-4e6f-9a7b-1c2d3e4f5a6b",
  });
  const proved = (input: AuthDeviceInput, pair: typeof rsa, timestamp: number) => {
    const algorithm = pair.privateKey.asymmetricKeyType === "ed25519" ? null : "sha256";
    const text = Buffer.from(deviceProofText(input, timestamp));
    return { ...input, proof: { timestamp, signature: sign(algorithm, text, pair.privateKey).toString("base64") } };
  };
  const now = 1_795_000_000_000;
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error instanceof ApiError ? `${error.status} ${error.message}` : String(error);
    }
    return "accepted";
  };

  it("verifies RSA (PKCS#1 v1.5, SHA-256) and ed25519 proofs, and answers false without one", () => {
    for (const [pair, uid] of [
      [rsa, "u-rsa"],
      [ed25519, "u-ed"],
    ] as const) {
      const input = body(pair, "lab");
      expect(isProvenCall(input, uid, now)).toBe(false);
      expect(isProvenCall(proved(input, pair, now / 1000 - 30), uid, now)).toBe(true);
    }
  });

  it("bounds the timestamp to ten minutes back and one ahead, however the signature was cached", () => {
    const input = proved(body(ed25519, "bounds"), ed25519, now / 1000 - 600);
    expect(isProvenCall(input, "u-bounds", now)).toBe(true);
    expect(refusal(() => isProvenCall(input, "u-bounds", now + 1000))).toBe(
      "401 the proof's timestamp is 601 s old: sign again with the server's time (the Date header)",
    );
    const ahead = proved(body(ed25519, "bounds"), ed25519, now / 1000 + 61);
    expect(refusal(() => isProvenCall(ahead, "u-bounds", now))).toMatch(/^401 the proof's timestamp is 61 s ahead/);
    expect(isProvenCall(proved(body(ed25519, "bounds"), ed25519, now / 1000 + 60), "u-bounds", now)).toBe(true);
  });

  it("refuses a signature by another key, over another identity, or that is not one", () => {
    const other = generateKeyPairSync("ed25519");
    const input = body(ed25519, "lab");
    const signedByOther = { ...input, proof: proved(input, other, now / 1000).proof };
    const moved = { ...proved(input, ed25519, now / 1000), hostname: "elsewhere" };
    const garbage = { ...input, proof: { timestamp: now / 1000, signature: "AAAA" } };
    for (const call of [signedByOther, moved, garbage]) {
      expect(refusal(() => isProvenCall(call, "u-forged", now))).toBe(
        "401 the proof's signature does not verify with the device's public key",
      );
    }
  });
});
