import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { DeviceStatus } from "./enums";
import { tenantIdColumn } from "./namespaces";

/**
 * How many devices each namespace has in each status, and how many of them are online, kept by
 * triggers on `devices` (the migrations that create this table and add `online`) in the
 * transaction that inserts, deletes or changes the status or `online` of a device: the device
 * list's total and the stats without counting the namespace's rows. No trigger fires for a
 * heartbeat that finds its device online already: it writes only `device_presence`
 * (docs/performance.md).
 */
export const deviceCounts = pgTable(
  "device_counts",
  {
    tenantId: tenantIdColumn(),
    status: text("status").$type<DeviceStatus>().notNull(),
    count: integer("count").notNull(),
    online: integer("online").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.status] })],
);
