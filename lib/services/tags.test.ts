import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { firewallRules } from "@/models/firewall-rules";
import type { PublicKeyFilter } from "@/models/public-keys";
import { publicKeys } from "@/models/public-keys";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { deleteTag, listTags, renameTag } from "./tags";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

async function insertDevice(scope: Scope, tags: string[]) {
  const [uid = ""] = await insertDevices(db, scope, [{ tags }]);
  return uid;
}

async function insertPublicKey(scope: Scope, filter: PublicKeyFilter) {
  const fingerprint = createHash("md5").update(randomUUID()).digest("hex").match(/../g)?.join(":") ?? "";
  await db
    .insert(publicKeys)
    .values({ tenantId: scope.tenantId, fingerprint, data: "AAAA", name: "key", filter, username: ".*" });
  return fingerprint;
}

async function insertRule(scope: Scope, filter: PublicKeyFilter) {
  const [row] = await db
    .insert(firewallRules)
    .values({
      tenantId: scope.tenantId,
      action: "allow",
      active: true,
      priority: 1,
      sourceIp: ".*",
      username: ".*",
      filter,
    })
    .returning({ id: firewallRules.id });
  return row?.id ?? 0;
}

const keyFilter = async (fingerprint: string) =>
  (await db.select().from(publicKeys).where(eq(publicKeys.fingerprint, fingerprint)))[0]?.filter;
const ruleFilter = async (id: number) =>
  (await db.select().from(firewallRules).where(eq(firewallRules.id, id)))[0]?.filter;
const deviceTags = async (uid: string) => (await db.select().from(devices).where(eq(devices.uid, uid)))[0]?.tags;

describe("namespace tags across devices, public keys and firewall rules", () => {
  let scope: Scope;
  let other: Scope;
  let device: string;
  let key: string;
  let hostnameKey: string;
  let rule: number;
  let theirKey: string;

  beforeEach(async () => {
    [scope, other] = [await seedScope(db), await seedScope(db)];
    device = await insertDevice(scope, ["device-only", "shared"]);
    key = await insertPublicKey(scope, { tags: ["key-only", "shared", "last"] });
    hostnameKey = await insertPublicKey(scope, { hostname: "shared" });
    rule = await insertRule(scope, { tags: ["shared", "rule-only"] });
    theirKey = await insertPublicKey(other, { tags: ["shared", "theirs"] });
  });

  it("lists the distinct union in name order, ignoring hostname filters and other namespaces", async () => {
    const page = await listTags(db, scope, { page: 1, per_page: 100 });
    expect(page).toEqual({ items: ["device-only", "key-only", "last", "rule-only", "shared"], total: 5 });
    expect(await listTags(db, scope, { page: 2, per_page: 2 })).toEqual({ items: ["last", "rule-only"], total: 5 });
  });

  it("renames in device tags and in the filter tags of keys and rules, in place", async () => {
    await renameTag(db, scope, "shared", "renamed");
    expect(await deviceTags(device)).toEqual(["device-only", "renamed"]);
    expect(await keyFilter(key)).toEqual({ tags: ["key-only", "renamed", "last"] });
    expect(await ruleFilter(rule)).toEqual({ tags: ["renamed", "rule-only"] });
    // A hostname filter that reads like the tag, and another namespace's key, stay as they were.
    expect(await keyFilter(hostnameKey)).toEqual({ hostname: "shared" });
    expect(await keyFilter(theirKey)).toEqual({ tags: ["shared", "theirs"] });
  });

  it("renames a tag that only a firewall rule has", async () => {
    await renameTag(db, scope, "rule-only", "rule-renamed");
    expect(await ruleFilter(rule)).toEqual({ tags: ["shared", "rule-renamed"] });
    expect((await listTags(db, scope, { page: 1, per_page: 100 })).items).toContain("rule-renamed");
  });

  it("refuses a rename onto a tag that only a public key has (409), changing nothing", async () => {
    await expect(renameTag(db, scope, "device-only", "key-only")).rejects.toMatchObject({ status: 409 });
    expect(await deviceTags(device)).toEqual(["device-only", "shared"]);
  });

  it("answers 404 for a tag only another namespace has", async () => {
    await expect(renameTag(db, scope, "theirs", "mine")).rejects.toMatchObject({ status: 404 });
    await expect(deleteTag(db, scope, "theirs")).rejects.toMatchObject({ status: 404 });
    expect(await keyFilter(theirKey)).toEqual({ tags: ["shared", "theirs"] });
  });

  it("deletes from devices, keys and rules of the namespace only", async () => {
    await deleteTag(db, scope, "shared");
    expect(await deviceTags(device)).toEqual(["device-only"]);
    expect(await keyFilter(key)).toEqual({ tags: ["key-only", "last"] });
    expect(await ruleFilter(rule)).toEqual({ tags: ["rule-only"] });
    expect(await keyFilter(hostnameKey)).toEqual({ hostname: "shared" });
    expect(await keyFilter(theirKey)).toEqual({ tags: ["shared", "theirs"] });
    await expect(deleteTag(db, scope, "shared")).rejects.toMatchObject({ status: 404 });
  });

  it("deletes a tag that only a public key has", async () => {
    await deleteTag(db, scope, "key-only");
    expect(await keyFilter(key)).toEqual({ tags: ["shared", "last"] });
  });
});
