import { verify } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import { base64Of, randomEd25519Line } from "@/testing/ssh-keys";
import type { DeviceCaller, Scope } from "../auth/credentials";
import { serverPublicKeyPem } from "../auth/server-key";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { authSshPublicKey, createPublicKey } from "./public-keys";

// The server key is generated into DATA_DIR on first use: a scratch one, not ./data.
const dataDir = mkdtempSync(path.join(tmpdir(), "das-keys-"));
process.env.DATA_DIR = dataDir;

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function insertNamedDevice(scope: Scope, name: string, tags: string[] = []): Promise<DeviceCaller> {
  const [uid = ""] = await insertDevices(db, scope, [{ name, tags }]);
  return { uid, tenantId: scope.tenantId };
}

const seedKey = async (scope: Scope, filter: { hostname: string } | { tags: string[] }) =>
  (await createPublicKey(db, scope, { data: base64Of(randomEd25519Line()), name: "key", username: ".*", filter }))
    .fingerprint;

async function statusOf(promise: Promise<unknown>) {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe("authSshPublicKey", () => {
  it("signs with the server key, generated into DATA_DIR, for a key that admits the device", async () => {
    const scope = await seedScope(db);
    const device = await insertNamedDevice(scope, "web-01");
    const fingerprint = await seedKey(scope, { hostname: "^web-" });
    const { signature } = await authSshPublicKey(db, device, { fingerprint, data: "nonce" });
    expect(existsSync(path.join(dataDir, "signing.key"))).toBe(true);
    const publicKey = serverPublicKeyPem();
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(verify("sha256", Buffer.from("nonce"), publicKey, Buffer.from(signature, "base64"))).toBe(true);
    expect(verify("sha256", Buffer.from("other"), publicKey, Buffer.from(signature, "base64"))).toBe(false);
  });

  it("admits by tags: any one of the key's tags on the device", async () => {
    const scope = await seedScope(db);
    const tagged = await insertNamedDevice(scope, "db-01", ["eu-west", "prod"]);
    const untagged = await insertNamedDevice(scope, "db-02");
    const fingerprint = await seedKey(scope, { tags: ["staging", "prod"] });
    expect(await statusOf(authSshPublicKey(db, tagged, { fingerprint, data: "x" }))).toBe(200);
    expect(await statusOf(authSshPublicKey(db, untagged, { fingerprint, data: "x" }))).toBe(404);
  });

  it("is a 404 for another namespace's key, a filter that does not admit the device, or a device of another namespace", async () => {
    const [scope, other] = await Promise.all([seedScope(db), seedScope(db)]);
    const device = await insertNamedDevice(scope, "web-01");
    const foreignDevice = await insertNamedDevice(other, "web-01");
    const foreignKey = await seedKey(other, { hostname: ".*" });
    const elsewhere = await seedKey(scope, { hostname: "^db-" });
    const mine = await seedKey(scope, { hostname: ".*" });
    expect(await statusOf(authSshPublicKey(db, device, { fingerprint: foreignKey, data: "x" }))).toBe(404);
    expect(await statusOf(authSshPublicKey(db, device, { fingerprint: elsewhere, data: "x" }))).toBe(404);
    expect(await statusOf(authSshPublicKey(db, foreignDevice, { fingerprint: mine, data: "x" }))).toBe(404);
    // A token naming one namespace's device with another tenant finds nothing either.
    const forged = { uid: device.uid, tenantId: other.tenantId };
    expect(await statusOf(authSshPublicKey(db, forged, { fingerprint: foreignKey, data: "x" }))).toBe(404);
    expect(await statusOf(authSshPublicKey(db, device, { fingerprint: mine, data: "x" }))).toBe(200);
  });
});
