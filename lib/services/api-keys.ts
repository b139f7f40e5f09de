import { randomUUID } from "node:crypto";
import { and, asc, desc, eq } from "drizzle-orm";
import { type ApiKeyRow, apiKeys } from "@/models/api-keys";
import type { Scope } from "../auth/credentials";
import { isRoleAbove, type MemberRole } from "../auth/roles";
import { hashToken } from "../auth/token-hash";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { conflict, forbidden, isUniqueViolation, notFound, ValidationError } from "../errors";
import { paged } from "../results";
import { chosenKeyRefused } from "../schemas/api-keys";
import type { Pagination } from "../schemas/common";
import { audited } from "./audit";

const describe = (row: ApiKeyRow) => ({
  tenant_id: row.tenantId,
  created_by: row.createdBy,
  role: row.role,
  name: row.name,
  expires_in: row.expiresIn,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

function assertRoleWithin(scope: Scope, role: MemberRole) {
  if (isRoleAbove(role, scope.role)) throw forbidden(`a ${scope.role} cannot give a key the ${role} role`);
}

function mapConflict(error: unknown): unknown {
  if (isUniqueViolation(error, "api_keys_tenant_name_key")) return conflict("an API key with this name already exists");
  if (isUniqueViolation(error, "api_keys_pkey"))
    return new ValidationError([{ field: "key", message: chosenKeyRefused }]);
  return error;
}

export type CreateApiKeyInput = {
  name: string;
  expires_at: -1 | 30 | 60 | 90 | 365;
  role?: MemberRole | "";
  key?: string;
};

/** Creates a key; the key itself is in the answer's `id`, once: only its hash is kept. */
export async function createApiKey(db: Executor, scope: Scope, input: CreateApiKeyInput) {
  const role = input.role || scope.role;
  assertRoleWithin(scope, role);
  const key = input.key || randomUUID();
  const expiresIn = input.expires_at === -1 ? -1 : Math.floor(Date.now() / 1000) + input.expires_at * 86400;
  const created = await audited(
    db,
    scope,
    "api_key.create",
    async (tx) => {
      const [row] = await tx
        .insert(apiKeys)
        .values({
          keyHash: hashToken(key),
          tenantId: scope.tenantId,
          name: input.name,
          role,
          createdBy: scope.actorId,
          expiresIn,
        })
        .returning()
        .catch((error: unknown) => {
          throw mapConflict(error);
        });
      if (!row) throw new Error("insert returned no row");
      return describe(row);
    },
    auditOfKey,
  );
  return { id: key, ...created };
}

const auditOfKey = (key: ReturnType<typeof describe>) => ({
  target: { type: "api_key", id: key.name },
  details: { role: key.role, expires_in: key.expires_in },
});

const sortColumns = {
  expires_in: apiKeys.expiresIn,
  name: apiKeys.name,
  role: apiKeys.role,
  created_at: apiKeys.createdAt,
  updated_at: apiKeys.updatedAt,
} as const;

export async function listApiKeys(
  db: Executor,
  scope: Scope,
  query: Pagination & { order_by: "asc" | "desc"; sort_by: keyof typeof sortColumns },
) {
  const where = eq(apiKeys.tenantId, scope.tenantId);
  const direction = query.order_by === "asc" ? asc : desc;
  const { rows, total } = await readPage(
    db,
    { from: apiKeys, where },
    db.select().from(apiKeys).where(where).orderBy(direction(sortColumns[query.sort_by]), asc(apiKeys.name)).$dynamic(),
    query,
  );
  return paged(rows.map(describe), total);
}

/** A key of the namespace whose role does not exceed the caller's. */
async function ownKey(db: Executor, scope: Scope, name: string) {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, scope.tenantId), eq(apiKeys.name, name)));
  if (!row) throw notFound("API key");
  assertRoleWithin(scope, row.role);
  return row;
}

export async function updateApiKey(
  db: Executor,
  scope: Scope,
  name: string,
  input: { name?: string; role?: MemberRole },
) {
  const row = await ownKey(db, scope, name);
  if (input.role) assertRoleWithin(scope, input.role);
  return audited(
    db,
    scope,
    "api_key.update",
    async (tx) => {
      const [updated] = await tx
        .update(apiKeys)
        .set({ name: input.name ?? row.name, role: input.role ?? row.role })
        .where(eq(apiKeys.keyHash, row.keyHash))
        .returning()
        .catch((error: unknown) => {
          throw mapConflict(error);
        });
      if (!updated) throw notFound("API key");
      return describe(updated);
    },
    (key) => ({ target: { type: "api_key", id: name }, details: { name: key.name, role: key.role } }),
  );
}

export async function deleteApiKey(db: Executor, scope: Scope, name: string) {
  const row = await ownKey(db, scope, name);
  await audited(
    db,
    scope,
    "api_key.delete",
    (tx) => tx.delete(apiKeys).where(eq(apiKeys.keyHash, row.keyHash)),
    () => auditOfKey(describe(row)),
  );
}
