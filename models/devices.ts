import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { type DeviceStatus, deviceStatuses } from "./enums";
import { tenantIdColumn } from "./namespaces";

export { type DeviceStatus, deviceStatuses };

/** The device a row belongs to: deleting the device deletes the row. */
export const deviceUidColumn = () =>
  text("device_uid")
    .notNull()
    .references(() => devices.uid, { onDelete: "cascade" });

export type DeviceInfo = { id: string; pretty_name: string; version: string; arch: string; platform: string };

export const devices = pgTable(
  "devices",
  {
    uid: text("uid").primaryKey(),
    tenantId: tenantIdColumn(),
    name: text("name").notNull(),
    identity: jsonb("identity").$type<{ mac: string }>().notNull(),
    info: jsonb("info").$type<DeviceInfo>().notNull(),
    publicKey: text("public_key").notNull(),
    // SHA-256 of the key's DER bytes (the PEM's payload): with a proof of possession the key is the device.
    keyDigest: text("key_digest").notNull(),
    // When the agent first proved it holds the private key; from then on its calls must be signed.
    keyProvenAt: timestamp("key_proven_at", { withTimezone: true }),
    status: text("status").$type<DeviceStatus>().notNull().default("pending"),
    statusUpdateAt: timestamp("status_update_at", { withTimezone: true }).notNull().defaultNow(),
    online: boolean("online").notNull().default(false),
    // Why the server last refused or dropped the device's tunnel, and when (docs/diagnostics.md).
    tunnelError: text("tunnel_error"),
    tunnelErrorAt: timestamp("tunnel_error_at", { withTimezone: true }),
    remoteAddr: text("remote_addr").notNull().default(""),
    position: jsonb("position").$type<{ latitude: number; longitude: number }>(),
    tags: text("tags").array().notNull().default([]),
    publicUrl: boolean("public_url").notNull().default(false),
    createdAt: createdAt(),
  },
  // No index covers online, remote_addr or info, the columns a heartbeat sets when they change, so
  // those updates are HOT (no index entries; the table's fillfactor of 70, set in the migration,
  // leaves room on each page). last_seen lives in device_presence (models/device-presence.ts).
  (table) => [
    uniqueIndex("devices_tenant_name_key").on(table.tenantId, table.name),
    index("devices_tenant_status_idx").on(table.tenantId, table.status),
    index("devices_tenant_key_idx").on(table.tenantId, table.keyDigest),
    // `contains` filters on names use trigram matching.
    index("devices_name_trgm_idx").using("gin", sql`${table.name} gin_trgm_ops`),
  ],
);
