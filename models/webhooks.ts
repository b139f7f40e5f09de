import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { type WebhookDeliveryStatus, type WebhookEventType, webhookDeliveryStatuses } from "./enums";
import { tenantIdColumn } from "./namespaces";

/**
 * A namespace's webhook: where to send which events. The signing secret is sealed
 * (lib/auth/secret-box.ts, the webhook's id bound in) and shown only when it is made.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: tenantIdColumn(),
    url: text("url").notNull(),
    events: text("events").array().$type<WebhookEventType[]>().notNull(),
    enabled: boolean("enabled").notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("webhooks_tenant_idx").on(table.tenantId, table.createdAt)],
);

export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The durable outbox of webhook deliveries: written in the transaction of the event it carries,
 * claimed by one instance at a time, kept with its attempts' outcome.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    webhookId: uuid("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventType: text("event_type").$type<WebhookEventType>().notNull(),
    // The body's `data`: the event as the API shows it.
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    status: text("status", { enum: webhookDeliveryStatuses })
      .$type<WebhookDeliveryStatus>()
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    // The last attempt: the receiver's status code and the start of its answer, or why there was none.
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    lastError: text("last_error"),
    durationMs: integer("duration_ms"),
    createdAt: createdAt(),
  },
  (table) => [
    index("webhook_deliveries_due_idx").on(table.status, table.nextAttemptAt),
    index("webhook_deliveries_webhook_idx").on(table.webhookId, table.createdAt),
  ],
);

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
