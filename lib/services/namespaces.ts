import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { devices } from "@/models/devices";
import { members, type NamespaceRow, namespaces } from "@/models/namespaces";
import { users } from "@/models/users";
import type { Caller, Scope } from "../auth/credentials";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { conflict, isUniqueViolation, notFound } from "../errors";
import { paged } from "../results";
import type { Pagination } from "../schemas/common";
import type { FilterItem } from "../schemas/list-filter";
import { forgetNamespaceName } from "./agent";
import { audited } from "./audit";
import { type FilterField, filterToSql } from "./list-filter";
import { namespaceBillings } from "./plan-limit";

const filterFields: Record<string, FilterField> = {
  name: { column: namespaces.name, type: "text" },
  tenant_id: { column: sql`${namespaces.tenantId}::text`, type: "text" },
  created_at: { column: namespaces.createdAt, type: "date" },
};

/** Namespaces as the API shows them, members and accepted-device count included. */
async function describeNamespaces(db: Executor, rows: NamespaceRow[]) {
  if (rows.length === 0) return [];
  const tenantIds = rows.map((row) => row.tenantId);
  const memberRows = await db
    .select({
      tenantId: members.tenantId,
      id: members.userId,
      role: members.role,
      status: members.status,
      username: users.username,
      email: users.email,
      addedAt: members.addedAt,
    })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(inArray(members.tenantId, tenantIds))
    .orderBy(asc(members.addedAt));
  const deviceCounts = await db
    .select({ tenantId: devices.tenantId, count: count() })
    .from(devices)
    .where(and(inArray(devices.tenantId, tenantIds), eq(devices.status, "accepted")))
    .groupBy(devices.tenantId);
  const billings = await namespaceBillings(db, tenantIds);
  return rows.map((row) => ({
    name: row.name,
    owner: row.owner,
    tenant_id: row.tenantId,
    members: memberRows
      .filter((member) => member.tenantId === row.tenantId)
      .map((member) => ({
        id: member.id,
        role: member.role,
        status: member.status,
        username: member.username,
        email: member.email,
        added_at: member.addedAt,
      })),
    settings: {
      session_record: row.sessionRecord,
      connection_announcement: row.connectionAnnouncement,
      allow_unsigned_agents: row.allowUnsignedAgents,
    },
    max_devices: row.maxDevices,
    device_count: deviceCounts.find((item) => item.tenantId === row.tenantId)?.count ?? 0,
    created_at: row.createdAt,
    billing: billings.get(row.tenantId) ?? null,
  }));
}

export async function getNamespace(db: Executor, scope: Scope) {
  const rows = await db.select().from(namespaces).where(eq(namespaces.tenantId, scope.tenantId));
  const [namespace] = await describeNamespaces(db, rows);
  if (!namespace) throw notFound("namespace");
  return namespace;
}

/** The caller's namespaces: a user's memberships, or an API key's one namespace. */
export async function listNamespaces(db: Executor, caller: Caller, query: Pagination & { filter?: FilterItem[] }) {
  const visible =
    caller.kind === "apikey"
      ? eq(namespaces.tenantId, caller.tenantId)
      : inArray(
          namespaces.tenantId,
          db
            .select({ tenantId: members.tenantId })
            .from(members)
            .where(and(eq(members.userId, caller.userId), eq(members.status, "accepted"))),
        );
  const where = and(visible, filterToSql(query.filter, filterFields));
  const { rows, total } = await readPage(
    db,
    { from: namespaces, where },
    db.select().from(namespaces).where(where).orderBy(asc(namespaces.createdAt), asc(namespaces.name)).$dynamic(),
    query,
  );
  return paged(await describeNamespaces(db, rows), total);
}

function nameTaken(error: unknown) {
  return isUniqueViolation(error, "namespaces_name_key")
    ? conflict("a namespace with this name already exists")
    : error;
}

/** Creates a namespace owned by `ownerId`; the tenant id is random unless given (admin CLI). */
export async function createNamespace(db: Executor, ownerId: string, input: { name: string; tenantId?: string }) {
  const row = await db
    .transaction(async (tx) => {
      const [namespace] = await tx
        .insert(namespaces)
        .values({ name: input.name, owner: ownerId, maxDevices: getConfig().MAX_DEVICES, tenantId: input.tenantId })
        .returning();
      if (!namespace) throw new Error("insert returned no row");
      await tx.insert(members).values({ tenantId: namespace.tenantId, userId: ownerId, role: "owner" });
      return namespace;
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, "namespaces_pkey")) throw conflict("a namespace with this tenant id already exists");
      throw nameTaken(error);
    });
  const [namespace] = await describeNamespaces(db, [row]);
  return namespace;
}

export type EditNamespaceInput = {
  name?: string;
  settings?: { session_record?: boolean; connection_announcement?: string; allow_unsigned_agents?: boolean };
};

export async function editNamespace(db: Executor, scope: Scope, input: EditNamespaceInput) {
  const changes: Partial<typeof namespaces.$inferInsert> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.settings?.session_record !== undefined) changes.sessionRecord = input.settings.session_record;
  if (input.settings?.connection_announcement !== undefined) {
    changes.connectionAnnouncement = input.settings.connection_announcement;
  }
  if (input.settings?.allow_unsigned_agents !== undefined) {
    changes.allowUnsignedAgents = input.settings.allow_unsigned_agents;
  }
  if (Object.keys(changes).length > 0) {
    await audited(
      db,
      scope,
      "namespace.update",
      (tx) =>
        tx
          .update(namespaces)
          .set(changes)
          .where(eq(namespaces.tenantId, scope.tenantId))
          .catch((error: unknown) => {
            throw nameTaken(error);
          }),
      () => ({ target: { type: "namespace", id: scope.tenantId }, details: { ...input } }),
    );
  }
  return getNamespace(db, scope);
}

/**
 * Deletes a namespace; its members, API keys, devices, public keys and sessions go with it. Its
 * audit trail stays, ending with the deletion, until the retention purge takes it.
 */
export async function deleteNamespace(db: Executor, scope: Scope) {
  await audited(
    db,
    scope,
    "namespace.delete",
    async (tx) => {
      const deleted = await tx
        .delete(namespaces)
        .where(eq(namespaces.tenantId, scope.tenantId))
        .returning({ tenantId: namespaces.tenantId, name: namespaces.name });
      if (deleted.length === 0) throw notFound("namespace");
      return deleted[0];
    },
    (deleted) => ({ target: { type: "namespace", id: scope.tenantId }, details: { name: deleted?.name } }),
  );
  forgetNamespaceName(scope.tenantId);
}

export async function getSessionRecord(db: Executor, scope: Scope): Promise<boolean> {
  const [row] = await db
    .select({ value: namespaces.sessionRecord })
    .from(namespaces)
    .where(eq(namespaces.tenantId, scope.tenantId));
  if (!row) throw notFound("namespace");
  return row.value;
}

export async function setSessionRecord(db: Executor, scope: Scope, value: boolean) {
  await audited(
    db,
    scope,
    "namespace.update",
    (tx) => tx.update(namespaces).set({ sessionRecord: value }).where(eq(namespaces.tenantId, scope.tenantId)),
    () => ({ target: { type: "namespace", id: scope.tenantId }, details: { settings: { session_record: value } } }),
  );
  return getSessionRecord(db, scope);
}

/** Looks a namespace up by name for the admin CLI, across tenants. */
export async function unscopedFindNamespace(db: Executor, name: string) {
  const [row] = await db.select().from(namespaces).where(eq(namespaces.name, name));
  if (!row) throw notFound(`namespace '${name}'`);
  return row;
}

export async function unscopedDeleteNamespace(db: Executor, name: string) {
  const deleted = await db
    .delete(namespaces)
    .where(eq(namespaces.name, name))
    .returning({ tenantId: namespaces.tenantId });
  if (deleted.length === 0) throw notFound(`namespace '${name}'`);
}
