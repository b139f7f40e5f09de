import { index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * pending: waiting for (another) delivery attempt; sent: handed to the SMTP server; failed: gave
 * up after the last attempt; kept: no SMTP server is configured, the mail stays here to be read.
 */
export const mailStatuses = ["pending", "sent", "failed", "kept"] as const;
export type MailStatus = (typeof mailStatuses)[number];

/** Every mail the service sends, queued before delivery and kept as the record of it. */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    // Emptied once delivered: the links in it are credentials until used.
    textBody: text("text_body").notNull(),
    htmlBody: text("html_body").notNull(),
    status: text("status", { enum: mailStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastError: text("last_error"),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [index("mail_outbox_due_idx").on(table.status, table.nextAttemptAt), index().on(table.createdAt)],
);

export type MailRow = typeof mailOutbox.$inferSelect;
