import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { type MemberRole, type MemberStatus, memberRoles, memberStatuses } from "./enums";
import { users } from "./users";

export { type MemberRole, type MemberStatus, memberRoles, memberStatuses };

export const namespaces = pgTable(
  "namespaces",
  {
    tenantId: uuid("tenant_id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    // Deleting the owner's account deletes the namespaces they own.
    owner: uuid("owner")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sessionRecord: boolean("session_record").notNull().default(false),
    connectionAnnouncement: text("connection_announcement").notNull().default(""),
    // Agents that cannot sign their calls may act for accepted devices (docs/device-identity.md).
    allowUnsignedAgents: boolean("allow_unsigned_agents").notNull().default(false),
    maxDevices: integer("max_devices").notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("namespaces_name_key").on(table.name), index("namespaces_owner_idx").on(table.owner)],
);

/** The namespace a row belongs to: deleting the namespace deletes the row. */
export const tenantIdColumn = () =>
  uuid("tenant_id")
    .notNull()
    .references(() => namespaces.tenantId, { onDelete: "cascade" });

/** A member invited by mail is `pending` until they accept; only `accepted` members act in the namespace. */

export const members = pgTable(
  "members",
  {
    tenantId: tenantIdColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<MemberRole>().notNull(),
    status: text("status").$type<MemberStatus>().notNull().default("accepted"),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.userId] }), index("members_user_idx").on(table.userId)],
);

export type NamespaceRow = typeof namespaces.$inferSelect;
export type MemberRow = typeof members.$inferSelect;
