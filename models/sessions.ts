import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { devices } from "./devices";
import { namespaces } from "./namespaces";

export const sessions = pgTable(
  "sessions",
  {
    uid: text("uid").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => namespaces.tenantId, { onDelete: "cascade" }),
    deviceUid: text("device_uid")
      .notNull()
      .references(() => devices.uid, { onDelete: "cascade" }),
    username: text("username").notNull(),
    ipAddress: text("ip_address").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp("last_seen", { withTimezone: true }).notNull().defaultNow(),
    active: boolean("active").notNull().default(true),
    authenticated: boolean("authenticated").notNull().default(false),
    recorded: boolean("recorded").notNull().default(false),
    type: text("type").notNull().default(""),
    term: text("term").notNull().default(""),
    // Why the gateway refused or ended the connection, for operators; empty when it went well.
    reason: text("reason").notNull().default(""),
    position: jsonb("position").$type<{ latitude: number; longitude: number }>(),
  },
  (table) => [index("sessions_tenant_started_idx").on(table.tenantId, table.startedAt)],
);

export type SessionRow = typeof sessions.$inferSelect;
