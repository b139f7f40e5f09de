import { boolean, index, integer, jsonb, pgTable, serial, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { type FirewallAction, firewallActions } from "./enums";
import { tenantIdColumn } from "./namespaces";
import type { PublicKeyFilter } from "./public-keys";

export { type FirewallAction, firewallActions };

export const firewallRules = pgTable(
  "firewall_rules",
  {
    id: serial("id").primaryKey(),
    tenantId: tenantIdColumn(),
    action: text("action").$type<FirewallAction>().notNull(),
    active: boolean("active").notNull(),
    priority: integer("priority").notNull(),
    // Regular expressions, run on a linear-time engine.
    sourceIp: text("source_ip").notNull(),
    username: text("username").notNull(),
    filter: jsonb("filter").$type<PublicKeyFilter>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("firewall_rules_tenant_priority_idx").on(table.tenantId, table.priority)],
);

export type FirewallRuleRow = typeof firewallRules.$inferSelect;
