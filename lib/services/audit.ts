import { and, asc, desc, eq, gte, lt, lte, type SQL, sql } from "drizzle-orm";
import { auditEntries } from "@/models/audit";
import {
  type AuditActor,
  type AuditRecord,
  actorOf,
  auditHash,
  describeAuditEntry,
  genesisHash,
  lockChain,
  recordAudit,
  systemActor,
} from "../audit/trail";
import type { Scope } from "../auth/credentials";
import type { Executor, Tx } from "../db";
import { readPage } from "../db/paging";
import { ApiError } from "../errors";
import { paged } from "../results";
import type { AuditQuery } from "../schemas/audit";

/** Records a change made by the scope's actor in the scope's namespace. */
export async function auditChange(
  db: Executor,
  scope: Scope,
  action: string,
  target: AuditRecord["target"],
  details?: Record<string, unknown>,
): Promise<void> {
  await recordAudit(db, {
    tenantId: scope.tenantId,
    actor: await actorOf(db, scope),
    source: scope.source,
    action,
    target,
    details,
  });
}

/**
 * Makes a change and records it in one transaction: `change` runs on the transaction, then
 * `entry` names the target (and details) from its result. A change that fails records nothing.
 */
export function audited<T>(
  db: Executor,
  scope: Scope,
  action: string,
  change: (tx: Tx) => Promise<T>,
  entry: (result: T) => { target: AuditRecord["target"]; details?: Record<string, unknown> },
): Promise<T> {
  return db.transaction(async (tx) => {
    const result = await change(tx);
    const { target, details } = entry(result);
    await auditChange(tx, scope, action, target, details);
    return result;
  });
}

type LoginAction = "user.login" | "user.mfa" | "user.mfa_recover";

/**
 * Runs one step of an account's login and records its decision in the service's trail (logins
 * belong to no namespace): the account once `attempt` names it, the outcome, the refusal's
 * reason. A right password answered with the MFA challenge is a success whose next step is MFA.
 */
export async function auditedLogin<T>(
  db: Executor,
  action: LoginAction,
  client: { source: string; identifier: string },
  attempt: (identify: (user: { id: string; username: string }) => void) => Promise<T>,
): Promise<T> {
  let actor: AuditActor = { type: "anonymous", id: "", name: client.identifier };
  const record = (outcome: "success" | "failure", details: Record<string, unknown>) =>
    recordAudit(db, {
      tenantId: "",
      actor,
      source: client.source,
      action,
      target: { type: "user", id: actor.id },
      outcome,
      details,
    });
  try {
    const result = await attempt((user) => {
      actor = { type: "user", id: user.id, name: user.username };
    });
    await record("success", {});
    return result;
  } catch (error) {
    if (error instanceof ApiError && "X-MFA-Token" in error.headers) await record("success", { next: "mfa" });
    else await record("failure", { reason: error instanceof ApiError ? error.message : "internal error" });
    throw error;
  }
}

function auditFilter(tenantId: string, query: Omit<AuditQuery, "page" | "per_page">): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(auditEntries.tenantId, tenantId)];
  if (query.actor)
    conditions.push(sql`(${auditEntries.actorName} = ${query.actor} or ${auditEntries.actorId} = ${query.actor})`);
  // `device.` names every action on devices; `device.accept` that one.
  if (query.action)
    conditions.push(
      query.action.endsWith(".")
        ? sql`starts_with(${auditEntries.action}, ${query.action})`
        : eq(auditEntries.action, query.action),
    );
  if (query.target) conditions.push(eq(auditEntries.targetId, query.target));
  if (query.outcome) conditions.push(eq(auditEntries.outcome, query.outcome));
  if (query.from) conditions.push(gte(auditEntries.at, new Date(query.from)));
  if (query.to) conditions.push(lte(auditEntries.at, new Date(query.to)));
  return and(...conditions);
}

/** The namespace's trail, newest first, filtered. */
export async function listAudit(db: Executor, scope: Scope, query: AuditQuery) {
  const where = auditFilter(scope.tenantId, query);
  const { rows, total } = await readPage(
    db,
    { from: auditEntries, where },
    db.select().from(auditEntries).where(where).orderBy(desc(auditEntries.id)).$dynamic(),
    query,
  );
  return paged(rows.map(describeAuditEntry), total);
}

const exportPageRows = 500;

/** The filtered trail as JSON lines, oldest first, read a page at a time. */
export async function* exportAudit(db: Executor, scope: Scope, query: Omit<AuditQuery, "page" | "per_page">) {
  const where = auditFilter(scope.tenantId, query);
  for (let after = 0; ; ) {
    const rows = await db
      .select()
      .from(auditEntries)
      .where(and(where, sql`${auditEntries.id} > ${after}`))
      .orderBy(asc(auditEntries.id))
      .limit(exportPageRows);
    if (rows.length === 0) return;
    yield `${rows.map((row) => JSON.stringify(describeAuditEntry(row))).join("\n")}\n`;
    after = rows[rows.length - 1]?.id ?? after;
  }
}

export type ChainVerdict =
  | { intact: true; rows: number; startsAfterPurge: boolean }
  | { intact: false; rows: number; brokenAt: number; reason: string };

/**
 * Walks a namespace's chain in id order and recomputes every hash. A first row that does not
 * start the chain must start where a recorded purge ended (`audit.purge` names the last hash
 * it deleted); anything else means rows were removed outside a purge.
 */
export async function verifyAuditChain(db: Executor, tenantId: string): Promise<ChainVerdict> {
  let previous: string | undefined;
  let rows = 0;
  let startsAfterPurge = false;
  for (let after = 0; ; ) {
    const page = await db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.tenantId, tenantId), sql`${auditEntries.id} > ${after}`))
      .orderBy(asc(auditEntries.id))
      .limit(exportPageRows);
    if (page.length === 0) return { intact: true, rows, startsAfterPurge };
    for (const row of page) {
      if (previous === undefined && row.previousHash !== genesisHash) {
        const [purge] = await db
          .select({ id: auditEntries.id })
          .from(auditEntries)
          .where(
            and(
              eq(auditEntries.tenantId, tenantId),
              eq(auditEntries.action, "audit.purge"),
              sql`${auditEntries.details}->>'through_hash' = ${row.previousHash}`,
            ),
          );
        if (!purge) return { intact: false, rows, brokenAt: row.id, reason: "the rows before it were removed" };
        startsAfterPurge = true;
      } else if (previous !== undefined && row.previousHash !== previous) {
        return { intact: false, rows, brokenAt: row.id, reason: "it does not follow the row before it" };
      }
      if (auditHash(row) !== row.hash)
        return { intact: false, rows, brokenAt: row.id, reason: "its content was changed" };
      previous = row.hash;
      rows += 1;
    }
    after = page[page.length - 1]?.id ?? after;
  }
}

/**
 * Deletes the rows older than `days` days, each namespace's in one transaction with the
 * `audit.purge` row that records how many went and the last hash deleted (where the chain now
 * starts). Returns the number of rows deleted.
 */
export async function unscopedPurgeAudit(db: Executor, days: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const tenants = await db
    .selectDistinct({ tenantId: auditEntries.tenantId })
    .from(auditEntries)
    .where(lt(auditEntries.at, cutoff));
  let deleted = 0;
  for (const { tenantId } of tenants) {
    await db.transaction(async (tx) => {
      await lockChain(tx, tenantId);
      const gone = await tx
        .delete(auditEntries)
        .where(and(eq(auditEntries.tenantId, tenantId), lt(auditEntries.at, cutoff)))
        .returning({ id: auditEntries.id, hash: auditEntries.hash });
      if (gone.length === 0) return;
      const last = gone.reduce((latest, row) => (row.id > latest.id ? row : latest));
      deleted += gone.length;
      await recordAudit(tx, {
        tenantId,
        actor: systemActor,
        source: "",
        action: "audit.purge",
        target: { type: "audit", id: tenantId },
        details: {
          deleted: gone.length,
          older_than: cutoff.toISOString(),
          through_id: last.id,
          through_hash: last.hash,
        },
      });
    });
  }
  return deleted;
}
