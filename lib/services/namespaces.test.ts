import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "@/models/api-keys";
import { devices } from "@/models/devices";
import { members, namespaces } from "@/models/namespaces";
import { publicKeys } from "@/models/public-keys";
import { sessions } from "@/models/sessions";
import { users } from "@/models/users";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { insertUser, userCaller } from "@/testing/rows/users";
import { resolveScope } from "../auth/credentials";
import { hashToken } from "../auth/token-hash";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { createNamespace, deleteNamespace, getNamespace, listNamespaces } from "./namespaces";

const hex64 = () => createHash("sha256").update(randomUUID()).digest("hex");
const fingerprint = () => createHash("md5").update(randomUUID()).digest("hex").match(/../g)?.join(":") ?? "";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

/** A namespace with a member, an API key, devices of every status, a public key and a session. */
async function populatedNamespace() {
  const owner = await insertUser(db);
  const member = await insertUser(db);
  const namespace = await createNamespace(db, owner.id, { name: `ns${randomUUID().slice(0, 8)}` });
  if (!namespace) throw new Error("no namespace");
  const tenantId = namespace.tenant_id;
  await db.insert(members).values({ tenantId, userId: member.id, role: "observer" });
  await db.insert(apiKeys).values({
    keyHash: hashToken(randomUUID()),
    tenantId,
    name: `key${randomUUID().slice(0, 8)}`,
    role: "observer",
    createdBy: owner.id,
    expiresIn: -1,
  });
  const accepted = [await insertDevice(db, tenantId, "accepted"), await insertDevice(db, tenantId, "accepted")];
  for (const status of ["pending", "rejected", "removed", "unused"] as const) await insertDevice(db, tenantId, status);
  await db.insert(publicKeys).values({
    tenantId,
    fingerprint: fingerprint(),
    data: Buffer.from("ssh-ed25519 AAAA test").toString("base64"),
    name: "key",
    filter: { hostname: ".*" },
    username: ".*",
  });
  await db.insert(sessions).values({
    uid: hex64(),
    tenantId,
    deviceUid: accepted[0] ?? "",
    username: "root",
    ipAddress: "192.0.2.1",
  });
  return { owner, member, tenantId };
}

async function rowsOf(tenantId: string) {
  const [namespaceRows, memberRows, keyRows, deviceRows, publicKeyRows, sessionRows] = await Promise.all([
    db.select().from(namespaces).where(eq(namespaces.tenantId, tenantId)),
    db.select().from(members).where(eq(members.tenantId, tenantId)),
    db.select().from(apiKeys).where(eq(apiKeys.tenantId, tenantId)),
    db.select().from(devices).where(eq(devices.tenantId, tenantId)),
    db.select().from(publicKeys).where(eq(publicKeys.tenantId, tenantId)),
    db.select().from(sessions).where(eq(sessions.tenantId, tenantId)),
  ]);
  return {
    namespaces: namespaceRows.length,
    members: memberRows.length,
    apiKeys: keyRows.length,
    devices: deviceRows.length,
    publicKeys: publicKeyRows.length,
    sessions: sessionRows.length,
  };
}

describe("namespace service", () => {
  it("starts a namespace with max_devices -1 and device_count 0", async () => {
    const owner = await insertUser(db);
    const namespace = await createNamespace(db, owner.id, { name: `ns${randomUUID().slice(0, 8)}` });
    expect(namespace?.max_devices).toBe(-1);
    expect(namespace?.device_count).toBe(0);
  });

  it("counts only accepted devices in device_count", async () => {
    const { owner, tenantId } = await populatedNamespace();
    const scope = await resolveScope(db, await userCaller(owner.id, tenantId), tenantId);
    const namespace = await getNamespace(db, scope);
    expect(namespace.device_count).toBe(2);
    const listed = await listNamespaces(db, await userCaller(owner.id, tenantId), {
      page: 1,
      per_page: 10,
    });
    expect(listed.items.map((item) => item.device_count)).toEqual([2]);
    await insertDevice(db, tenantId, "accepted");
    expect((await getNamespace(db, scope)).device_count).toBe(3);
  });

  it("deletes members, API keys, devices, public keys and sessions with the namespace, and nothing else", async () => {
    const doomed = await populatedNamespace();
    const kept = await populatedNamespace();
    const full = { namespaces: 1, members: 2, apiKeys: 1, devices: 6, publicKeys: 1, sessions: 1 };
    expect(await rowsOf(doomed.tenantId)).toEqual(full);

    const scope = await resolveScope(db, await userCaller(doomed.owner.id, doomed.tenantId), doomed.tenantId);
    expect(scope.role).toBe("owner");
    await deleteNamespace(db, scope);

    expect(await rowsOf(doomed.tenantId)).toEqual({
      namespaces: 0,
      members: 0,
      apiKeys: 0,
      devices: 0,
      publicKeys: 0,
      sessions: 0,
    });
    expect(await rowsOf(kept.tenantId)).toEqual(full);
    // The users themselves stay.
    const owner = await db.select().from(users).where(eq(users.id, doomed.owner.id));
    const member = await db.select().from(users).where(eq(users.id, doomed.member.id));
    expect(owner).toHaveLength(1);
    expect(member).toHaveLength(1);

    // A second delete is a 404.
    const again = await deleteNamespace(db, scope).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ApiError);
    expect((again as ApiError).status).toBe(404);
  });
});
