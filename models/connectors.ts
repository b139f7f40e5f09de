import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { devices } from "./devices";
import { type ConnectorState, connectorStates } from "./enums";
import { tenantIdColumn } from "./namespaces";

export { type ConnectorState, connectorStates };

/**
 * The TLS material of a connector: the CA that signs the engine's certificate and the client
 * certificate, in PEM. The client key is sealed (lib/auth/secret-box.ts, the connector's uid
 * bound in) and never leaves the server.
 */
export type ConnectorTls = { ca: string; cert: string; sealedKey: string };

/** A namespace's connection to a container engine (Docker Engine API over HTTP or HTTPS). */
export const connectors = pgTable(
  "connectors",
  {
    uid: uuid("uid").primaryKey().defaultRandom(),
    tenantId: tenantIdColumn(),
    enable: boolean("enable").notNull(),
    address: text("address").notNull(),
    port: integer("port").notNull(),
    secure: boolean("secure").notNull(),
    tls: jsonb("tls").$type<ConnectorTls>(),
    state: text("state").$type<ConnectorState>().notNull().default("pending"),
    message: text("message").notNull().default(""),
    // The status worker's lease (one instance syncs a connector at a time) and its back-off.
    leaseInstance: text("lease_instance"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    failures: integer("failures").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (table) => [index("connectors_tenant_idx").on(table.tenantId, table.createdAt)],
);

export type ConnectorRow = typeof connectors.$inferSelect;

/**
 * The devices that are containers of a connector's engine. Deleting the device deletes the row;
 * deleting the connector deletes its devices (lib/services/connectors.ts).
 */
export const connectorContainers = pgTable(
  "connector_containers",
  {
    deviceUid: text("device_uid")
      .primaryKey()
      .references(() => devices.uid, { onDelete: "cascade" }),
    connectorUid: uuid("connector_uid")
      .notNull()
      .references(() => connectors.uid, { onDelete: "cascade" }),
    containerId: text("container_id").notNull(),
    image: text("image").notNull(),
  },
  (table) => [index("connector_containers_connector_idx").on(table.connectorUid)],
);

export type ConnectorContainerRow = typeof connectorContainers.$inferSelect;
