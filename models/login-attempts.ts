import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Consecutive failed logins per (source address, account); drives the login lockout. */
export const loginAttempts = pgTable(
  "login_attempts",
  {
    source: text("source").notNull(),
    subject: text("subject").notNull(),
    failures: integer("failures").notNull(),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.source, table.subject] })],
);
