import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { devices } from "./devices";

/**
 * Which server instance holds a device's tunnel (one per device). With several instances behind
 * a load balancer, a gateway that does not hold the tunnel finds the owner here.
 */
export const tunnels = pgTable("tunnels", {
  deviceUid: text("device_uid")
    .primaryKey()
    .references(() => devices.uid, { onDelete: "cascade" }),
  instance: text("instance").notNull(),
  connectedAt: timestamp("connected_at", { withTimezone: true }).notNull().defaultNow(),
  // The agent's clock minus the server's when the tunnel opened (network delay included); null
  // for an agent that does not say its time.
  clockSkewMs: integer("clock_skew_ms"),
});

export type TunnelRow = typeof tunnels.$inferSelect;
