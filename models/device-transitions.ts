import { bigserial, boolean, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * A device's recent online/offline transitions with their cause ("why can't I reach this
 * device?", docs/diagnostics.md): one row per `device.online`/`device.offline` event, written
 * with the event; the newest 20 per device are kept (unscopedPruneTransitions). No foreign key:
 * the row is written after the change committed, and a removed device's rows are pruned.
 */
export const deviceTransitions = pgTable(
  "device_transitions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deviceUid: text("device_uid").notNull(),
    tenantId: uuid("tenant_id").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    online: boolean("online").notNull(),
    /** What made it change, in plain words ("tunnel closed", "no heartbeat for 120 s"). */
    cause: text("cause").notNull(),
  },
  (table) => [index("device_transitions_device_uid_idx").on(table.deviceUid, table.id)],
);

export type DeviceTransitionRow = typeof deviceTransitions.$inferSelect;
