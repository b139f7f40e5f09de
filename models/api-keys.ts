import { bigint, foreignKey, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { type MemberRole, members, tenantIdColumn } from "./namespaces";
import { users } from "./users";

export const apiKeys = pgTable(
  "api_keys",
  {
    // SHA-256 of the key; the key itself is shown once, at creation.
    keyHash: text("key_hash").primaryKey(),
    tenantId: tenantIdColumn(),
    name: text("name").notNull(),
    role: text("role").$type<MemberRole>().notNull(),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // Epoch seconds of expiry, or -1 for a key that never expires.
    expiresIn: bigint("expires_in", { mode: "number" }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("api_keys_tenant_name_key").on(table.tenantId, table.name),
    index("api_keys_created_by_idx").on(table.createdBy),
    // A key lives as long as its creator's membership: a removed member who is invited back
    // does not get their old keys back.
    foreignKey({
      name: "api_keys_membership_fkey",
      columns: [table.tenantId, table.createdBy],
      foreignColumns: [members.tenantId, members.userId],
    }).onDelete("cascade"),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
