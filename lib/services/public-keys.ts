import { and, asc, desc, eq } from "drizzle-orm";
import { devices } from "@/models/devices";
import { type PublicKeyFilter, type PublicKeyRow, publicKeys } from "@/models/public-keys";
import type { DeviceCaller, Scope } from "../auth/credentials";
import { signWithServerKey } from "../auth/server-key";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { conflict, isUniqueViolation, notFound } from "../errors";
import { paged } from "../results";
import type { Pagination } from "../schemas/common";
import type { FilterItem } from "../schemas/list-filter";
import { audited } from "./audit";
import { filterAdmits, filterTagEditor } from "./device-filter";
import { type FilterField, filterToSql } from "./list-filter";
import { sshKeyFingerprint } from "./public-key-format";
import { assertUserRegexes } from "./regex";

const describe = (row: PublicKeyRow) => ({
  data: row.data,
  fingerprint: row.fingerprint,
  created_at: row.createdAt,
  tenant_id: row.tenantId,
  name: row.name,
  filter: row.filter,
  username: row.username,
});

type PublicKeyRules = { name: string; username: string; filter: PublicKeyFilter };

const assertRegexes = ({ filter, username }: PublicKeyRules) =>
  assertUserRegexes({ ...("hostname" in filter ? { "filter.hostname": filter.hostname } : {}), username });

const ofKey = (scope: Scope, fingerprint: string) =>
  and(eq(publicKeys.tenantId, scope.tenantId), eq(publicKeys.fingerprint, fingerprint));

/** Stores a key; the fingerprint is computed here and is unique in the namespace. */
export async function createPublicKey(db: Executor, scope: Scope, input: PublicKeyRules & { data: string }) {
  const fingerprint = sshKeyFingerprint(input.data);
  assertRegexes(input);
  return audited(db, scope, "public_key.create", (tx) => insertPublicKey(tx, scope, fingerprint, input), auditOfKey);
}

const auditOfKey = (key: ReturnType<typeof describe>) => ({
  target: { type: "public_key", id: key.fingerprint },
  details: { name: key.name, username: key.username, filter: key.filter },
});

async function insertPublicKey(
  db: Executor,
  scope: Scope,
  fingerprint: string,
  input: PublicKeyRules & { data: string },
) {
  const [row] = await db
    .insert(publicKeys)
    .values({
      tenantId: scope.tenantId,
      fingerprint,
      data: input.data,
      name: input.name,
      filter: input.filter,
      username: input.username,
    })
    .returning()
    .catch((error: unknown) => {
      if (isUniqueViolation(error, "public_keys_tenant_id_fingerprint_pk")) {
        throw conflict("a public key with this fingerprint already exists in the namespace");
      }
      throw error;
    });
  if (!row) throw new Error("insert returned no row");
  return describe(row);
}

const filterFields: Record<string, FilterField> = {
  name: { column: publicKeys.name, type: "text" },
  fingerprint: { column: publicKeys.fingerprint, type: "text" },
  username: { column: publicKeys.username, type: "text" },
  created_at: { column: publicKeys.createdAt, type: "date" },
};

/** The namespace's keys, newest first. */
export async function listPublicKeys(db: Executor, scope: Scope, query: Pagination & { filter?: FilterItem[] }) {
  const where = and(eq(publicKeys.tenantId, scope.tenantId), filterToSql(query.filter, filterFields));
  const { rows, total } = await readPage(
    db,
    { from: publicKeys, where },
    db
      .select()
      .from(publicKeys)
      .where(where)
      .orderBy(desc(publicKeys.createdAt), asc(publicKeys.fingerprint))
      .$dynamic(),
    query,
  );
  return paged(rows.map(describe), total);
}

export async function updatePublicKey(db: Executor, scope: Scope, fingerprint: string, input: PublicKeyRules) {
  assertRegexes(input);
  return audited(
    db,
    scope,
    "public_key.update",
    async (tx) => {
      const [row] = await tx
        .update(publicKeys)
        .set({ name: input.name, username: input.username, filter: input.filter })
        .where(ofKey(scope, fingerprint))
        .returning();
      if (!row) throw notFound("public key");
      return describe(row);
    },
    auditOfKey,
  );
}

export async function deletePublicKey(db: Executor, scope: Scope, fingerprint: string) {
  await audited(
    db,
    scope,
    "public_key.delete",
    async (tx) => {
      const [row] = await tx.delete(publicKeys).where(ofKey(scope, fingerprint)).returning();
      if (!row) throw notFound("public key");
      return describe(row);
    },
    auditOfKey,
  );
}

const keyFilter = filterTagEditor({
  what: "public key",
  auditTarget: "public_key",
  lock: (tx, scope, fingerprint: string) =>
    tx.select({ filter: publicKeys.filter }).from(publicKeys).where(ofKey(scope, fingerprint)).for("update"),
  write: (db, scope, fingerprint, filter) =>
    db.update(publicKeys).set({ filter }).where(ofKey(scope, fingerprint)).returning(),
});

export const addPublicKeyTag = async (db: Executor, scope: Scope, fingerprint: string, tag: string) =>
  describe(await keyFilter.addTag(db, scope, fingerprint, tag));

export const removePublicKeyTag = async (db: Executor, scope: Scope, fingerprint: string, tag: string) =>
  describe(await keyFilter.removeTag(db, scope, fingerprint, tag));

/** Makes the key's filter exactly these tags, replacing a hostname filter too. */
export const updatePublicKeyTags = async (db: Executor, scope: Scope, fingerprint: string, tags: string[]) =>
  describe(await keyFilter.replaceTags(db, scope, fingerprint, tags));

/**
 * `POST /api/auth/ssh`: signs `data` with the server's key when the fingerprint is a key of the
 * calling device's namespace whose filter admits that device; anything else is a 404.
 */
export async function authSshPublicKey(
  db: Executor,
  device: DeviceCaller,
  input: { fingerprint: string; data: string },
) {
  const [row] = await db
    .select({ filter: publicKeys.filter, name: devices.name, tags: devices.tags })
    .from(publicKeys)
    .innerJoin(devices, and(eq(devices.uid, device.uid), eq(devices.tenantId, publicKeys.tenantId)))
    .where(and(eq(publicKeys.tenantId, device.tenantId), eq(publicKeys.fingerprint, input.fingerprint)));
  if (!row || filterAdmits(row.filter, row) !== true) throw notFound("public key");
  return { signature: signWithServerKey(input.data) };
}
