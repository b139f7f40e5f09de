import { bigserial, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The recent history of the live event stream (`GET /api/events`, docs/live-status.md): every
 * instance writes its events here and reads the others' from here, and a client that reconnects
 * gets what it missed. Rows live a few minutes. No foreign key: an event outlives nothing it
 * names, and a deleted namespace's rows simply age out.
 */
export const events = pgTable(
  "events",
  {
    // Ids are taken in commit order (one writer at a time, lib/services/events.ts), so a reader
    // that has seen id N has seen every event before it.
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tenantId: uuid("tenant_id").notNull(),
    type: text("type").notNull(),
    /** The device's or the session's uid. */
    subject: text("subject").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** The changed fields, as the API shows them. */
    patch: jsonb("patch").$type<Record<string, unknown>>().notNull(),
  },
  (table) => [index("events_tenant_id_idx").on(table.tenantId, table.id)],
);

export type EventRow = typeof events.$inferSelect;
