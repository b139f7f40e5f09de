import { createHash, randomUUID, verify } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { users } from "@/models/users";
import { type DeviceCaller, resolveScope, type Scope } from "../auth/credentials";
import { serverPublicKeyPem } from "../auth/server-key";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { withTestDatabase } from "../testing/database";
import { base64Of, randomEd25519Line } from "../testing/ssh-keys";
import { createNamespace } from "./namespaces";
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

/** A namespace with its owner's scope. */
async function seedScope(): Promise<Scope> {
  const username = `u${randomUUID().slice(0, 8)}`;
  const [user] = await db
    .insert(users)
    .values({ name: "Test User", username, email: `${username}@example.com`, passwordHash: "x" })
    .returning();
  if (!user) throw new Error("no user");
  const namespace = await createNamespace(db, user.id, { name: `ns${randomUUID().slice(0, 8)}` });
  if (!namespace) throw new Error("no namespace");
  return resolveScope(db, { kind: "user", userId: user.id, tokenTenant: namespace.tenant_id });
}

async function seedDevice(scope: Scope, name: string, tags: string[] = []): Promise<DeviceCaller> {
  const uid = createHash("sha256").update(randomUUID()).digest("hex");
  await db.insert(devices).values({
    uid,
    tenantId: scope.tenantId,
    name,
    identity: { mac: "02:42:ac:11:00:02" },
    info: { id: "debian", pretty_name: "Debian", version: "1", arch: "amd64", platform: "native" },
    publicKey: "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
    tags,
  });
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
    const scope = await seedScope();
    const device = await seedDevice(scope, "web-01");
    const fingerprint = await seedKey(scope, { hostname: "^web-" });
    const { signature } = await authSshPublicKey(db, device, { fingerprint, data: "nonce" });
    expect(existsSync(path.join(dataDir, "signing.key"))).toBe(true);
    const publicKey = serverPublicKeyPem();
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(verify("sha256", Buffer.from("nonce"), publicKey, Buffer.from(signature, "base64"))).toBe(true);
    expect(verify("sha256", Buffer.from("other"), publicKey, Buffer.from(signature, "base64"))).toBe(false);
  });

  it("admits by tags: any one of the key's tags on the device", async () => {
    const scope = await seedScope();
    const tagged = await seedDevice(scope, "db-01", ["eu-west", "prod"]);
    const untagged = await seedDevice(scope, "db-02");
    const fingerprint = await seedKey(scope, { tags: ["staging", "prod"] });
    expect(await statusOf(authSshPublicKey(db, tagged, { fingerprint, data: "x" }))).toBe(200);
    expect(await statusOf(authSshPublicKey(db, untagged, { fingerprint, data: "x" }))).toBe(404);
  });

  it("is a 404 for another namespace's key, a filter that does not admit the device, or a device of another namespace", async () => {
    const [scope, other] = await Promise.all([seedScope(), seedScope()]);
    const device = await seedDevice(scope, "web-01");
    const foreignDevice = await seedDevice(other, "web-01");
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
