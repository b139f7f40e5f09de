import { createHash } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { apiKeys } from "@/models/api-keys";
import { type AuditEntryRow, auditEntries } from "@/models/audit";
import { users } from "@/models/users";
import { type Executor, inTransaction, isEmbedded } from "../db";
import { insertRows } from "../db/insert-rows";
import { enqueueWebhookEvents, type WebhookEvent } from "../webhooks/outbox";

export type AuditActor = {
  /** `ssh`: a client logging into a device (id: the key's fingerprint or "password"; name: the login). */
  type: "user" | "api_key" | "device" | "ssh" | "system" | "anonymous";
  id: string;
  name: string;
};

export type AuditRecord = {
  /** The namespace, or "" for a decision outside any namespace. */
  tenantId: string;
  actor: AuditActor;
  source: string;
  action: string;
  target: { type: string; id: string };
  outcome?: "success" | "failure";
  details?: Record<string, unknown>;
};

/** The system's own work (timers, the CLI): no client address. */
export const systemActor: AuditActor = { type: "system", id: "system", name: "system" };

/** The chain's start: the previous hash of a namespace's first row. */
export const genesisHash = "";

/**
 * JSON with every object's keys sorted, at any depth: the text a row's hash covers must not
 * depend on key order, which PostgreSQL's jsonb does not keep.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

type HashedFields = Omit<AuditEntryRow, "id" | "hash">;

/** SHA-256 over the previous row's hash and this row's content (everything but id and hash). */
export function auditHash(row: HashedFields): string {
  const content = canonicalJson({
    tenant_id: row.tenantId,
    at: row.at.toISOString(),
    actor_type: row.actorType,
    actor_id: row.actorId,
    actor_name: row.actorName,
    source: row.source,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    outcome: row.outcome,
    details: row.details,
  });
  return createHash("sha256").update(row.previousHash).update("\n").update(content).digest("hex");
}

/**
 * One chain per namespace: its rows are written one at a time, in id order. The lock is held
 * until the transaction ends; the embedded database runs one transaction at a time and needs none.
 */
export async function lockChain(tx: Executor, tenantId: string) {
  if (!isEmbedded(tx)) await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`audit:${tenantId}`}, 0))`);
}

/** A row of the trail as the API answers it (`GET /api/audit`) and webhooks carry it. */
export const describeAuditEntry = (row: AuditEntryRow) => ({
  id: row.id,
  time: row.at.toISOString(),
  actor: { type: row.actorType, id: row.actorId, name: row.actorName },
  source: row.source,
  action: row.action,
  target: { type: row.targetType, id: row.targetId },
  outcome: row.outcome,
  details: row.details,
  hash: row.hash,
});

/** What webhooks are offered of a row: the row itself (`audit`), and a refused SSH login as `login.refused`. */
function webhookEventsOf(row: AuditEntryRow): WebhookEvent[] {
  const offered: WebhookEvent[] = [{ tenantId: row.tenantId, type: "audit", data: describeAuditEntry(row) }];
  if (row.action === "ssh.login" && row.outcome === "failure") {
    offered.push({
      tenantId: row.tenantId,
      type: "login.refused",
      uid: row.targetId,
      data: {
        uid: row.targetId,
        username: row.actorName,
        key: row.actorId,
        source: row.source,
        reason: row.details.reason ?? "",
        time: row.at.toISOString(),
      },
    });
  }
  return offered;
}

/**
 * Appends a row to its namespace's chain and queues its webhook deliveries. Pass the transaction
 * of the change it records: the row commits with the change or not at all. The namespace's chain
 * is locked until that transaction ends, so audited changes of one namespace commit one at a time.
 */
export const recordAudit = (db: Executor, record: AuditRecord) => recordAudits(db, [record]);

/**
 * Appends rows to their namespaces' chains, in order, one insert per namespace (the events
 * writer records a batch of online/offline changes this way).
 */
export async function recordAudits(db: Executor, records: AuditRecord[]): Promise<void> {
  const byTenant = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const batch = byTenant.get(record.tenantId);
    if (batch) batch.push(record);
    else byTenant.set(record.tenantId, [record]);
  }
  if (byTenant.size === 0) return;
  await inTransaction(db, async (tx) => {
    for (const [tenantId, batch] of byTenant) {
      await lockChain(tx, tenantId);
      const [last] = await tx
        .select({ hash: auditEntries.hash })
        .from(auditEntries)
        .where(eq(auditEntries.tenantId, tenantId))
        .orderBy(desc(auditEntries.id))
        .limit(1);
      let previousHash = last?.hash ?? genesisHash;
      const at = new Date();
      const rows = batch.map((record) => {
        const row: HashedFields = {
          tenantId,
          at,
          actorType: record.actor.type,
          actorId: record.actor.id,
          actorName: record.actor.name,
          source: record.source,
          action: record.action,
          targetType: record.target.type,
          targetId: record.target.id,
          outcome: record.outcome ?? "success",
          details: record.details ?? {},
          previousHash,
        };
        previousHash = auditHash(row);
        return { ...row, hash: previousHash };
      });
      const ids = await insertRows(tx, auditEntries, rows);
      const written = rows.map((row, index) => ({ ...row, id: ids[index] ?? 0 }));
      await enqueueWebhookEvents(tx, written.flatMap(webhookEventsOf));
    }
  });
}

/** Who acts with a namespace's credential: the user, or the API key (`keyName`) acting for its creator. */
export type Acting = { tenantId: string; actorId: string; via: "jwt" | "apikey"; keyName?: string };

/** The audit actor of a credential, named as it is now (a username, an API key's name). */
export async function actorOf(db: Executor, acting: Acting): Promise<AuditActor> {
  if (acting.via === "apikey" && acting.keyName !== undefined) {
    const [key] = await db
      .select({ name: apiKeys.name })
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, acting.tenantId), eq(apiKeys.name, acting.keyName)));
    return { type: "api_key", id: acting.keyName, name: key?.name ?? acting.keyName };
  }
  const [user] = await db.select({ username: users.username }).from(users).where(eq(users.id, acting.actorId));
  return { type: "user", id: acting.actorId, name: user?.username ?? "" };
}
