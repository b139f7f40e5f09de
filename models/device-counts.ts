import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { DeviceStatus } from "./enums";
import { tenantIdColumn } from "./namespaces";

/**
 * How many devices each namespace has in each status, kept by triggers on `devices` (the
 * migration that creates this table) in the transaction that inserts, deletes or changes the
 * status of a device: the device list's total without counting the namespace's rows. No trigger
 * fires on the columns heartbeats set, which stay unindexed (docs/performance.md).
 */
export const deviceCounts = pgTable(
  "device_counts",
  {
    tenantId: tenantIdColumn(),
    status: text("status").$type<DeviceStatus>().notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.status] })],
);
