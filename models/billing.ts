import { boolean, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { tenantIdColumn } from "./namespaces";

/**
 * A namespace's account at the payment processor (docs/billing.md): its customer and what the
 * processor last said of its subscription. The processor is the source of truth; these columns
 * are its latest answer, kept so the device limit is decided without calling it.
 */
export const billingAccounts = pgTable(
  "billing_accounts",
  {
    tenantId: tenantIdColumn().primaryKey(),
    customerId: text("customer_id").notNull(),
    subscriptionId: text("subscription_id"),
    subscriptionStatus: text("subscription_status"),
    currentPeriodEnd: timestamp("current_period_end", { withTimezone: true }),
    // The subscription ended with more accepted devices than the free plan allows, and the
    // owner has not yet chosen which to keep.
    isChoicePending: boolean("is_choice_pending").notNull().default(false),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("billing_accounts_customer_key").on(table.customerId)],
);

export type BillingAccountRow = typeof billingAccounts.$inferSelect;

/** The processor's webhook events already processed: each is processed once. */
export const billingEvents = pgTable("billing_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  processedAt: timestamp("processed_at", { withTimezone: true }).notNull().defaultNow(),
});
