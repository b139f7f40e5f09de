import { jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { tenantIdColumn } from "./namespaces";

export type PublicKeyFilter = { hostname: string } | { tags: string[] };

export const publicKeys = pgTable(
  "public_keys",
  {
    tenantId: tenantIdColumn(),
    fingerprint: text("fingerprint").notNull(),
    data: text("data").notNull(),
    name: text("name").notNull(),
    filter: jsonb("filter").$type<PublicKeyFilter>().notNull(),
    username: text("username").notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.fingerprint] })],
);

export type PublicKeyRow = typeof publicKeys.$inferSelect;
