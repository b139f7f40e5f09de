import { eq, getTableColumns } from "drizzle-orm";
import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { devices } from "./devices";
import { tenantIdColumn } from "./namespaces";

/**
 * When each device was last seen, apart from its row in `devices`: a heartbeat updates this narrow
 * row alone (and `devices` only when the device comes online or its address or information
 * change), so `last_seen` can be indexed for the device list's default order without making every
 * heartbeat add entries to the six indexes of `devices` (docs/performance.md). A trigger on
 * `devices` (the migration that creates this table) adds the row of every new device.
 */
export const devicePresence = pgTable(
  "device_presence",
  {
    uid: text("uid")
      .primaryKey()
      .references(() => devices.uid, { onDelete: "cascade" }),
    tenantId: tenantIdColumn(),
    lastSeen: timestamp("last_seen", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("device_presence_tenant_last_seen_idx").on(table.tenantId, table.lastSeen, table.uid)],
);

/** A device's columns with its `last_seen`: what a query that shows a device selects. */
export const deviceColumns = { ...getTableColumns(devices), lastSeen: devicePresence.lastSeen };

/** The join that gives a device its `last_seen` (every device has its row). */
export const presenceOfDevice = eq(devicePresence.uid, devices.uid);

export type DeviceRow = typeof devices.$inferSelect & { lastSeen: Date };
