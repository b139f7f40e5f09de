import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The audit trail (docs/audit.md): one row per authentication decision and per change an actor
 * makes, written in the transaction of the change itself. Each row carries the SHA-256 of its
 * content chained to the previous row of its namespace, so an edited, deleted or reordered row
 * breaks the chain. No foreign keys: the trail outlives the users, keys and devices it names.
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    // Within a namespace, ids follow the chain: rows are written one at a time per namespace.
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The namespace; empty for decisions outside any namespace (a login of an unknown account). */
    tenantId: text("tenant_id").notNull(),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
    /** user, api_key, device, system or anonymous. */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id").notNull(),
    /** The actor's name when the row was written (a username, an API key's name, a hostname). */
    actorName: text("actor_name").notNull(),
    /** The client's address, empty for the system. */
    source: text("source").notNull(),
    /** What was done, `resource.verb` (device.accept, ssh.login...). */
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    /** success, or failure for a refused authentication. */
    outcome: text("outcome").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    previousHash: text("previous_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (table) => [
    index("audit_entries_tenant_id_idx").on(table.tenantId, table.id),
    index("audit_entries_tenant_id_at_idx").on(table.tenantId, table.at),
  ],
);

export type AuditEntryRow = typeof auditEntries.$inferSelect;
