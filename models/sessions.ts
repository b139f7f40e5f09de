import { boolean, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { deviceUidColumn } from "./devices";
import { tenantIdColumn } from "./namespaces";

export const sessions = pgTable(
  "sessions",
  {
    uid: text("uid").primaryKey(),
    tenantId: tenantIdColumn(),
    deviceUid: deviceUidColumn(),
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
    // The hash of the recording's last frame: a frame removed at the end breaks the chain too.
    recordHash: text("record_hash"),
    position: jsonb("position").$type<{ latitude: number; longitude: number }>(),
  },
  (table) => [index("sessions_tenant_started_idx").on(table.tenantId, table.startedAt)],
);

export type SessionRow = typeof sessions.$inferSelect;
