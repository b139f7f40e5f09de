import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { deviceUidColumn } from "./devices";
import { tenantIdColumn } from "./namespaces";
import { users } from "./users";

/**
 * One-time tokens of the browser terminal, for a minute between `POST /ws/ssh` and the WebSocket
 * that follows, on whichever instance it lands. The row is keyed by the token's SHA-256 and
 * holds the credential sealed under a key derived from the token, which only the browser has.
 */
export const terminalTickets = pgTable(
  "terminal_tickets",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tenantId: tenantIdColumn(),
    deviceUid: deviceUidColumn(),
    username: text("username").notNull(),
    sealedCredential: text("sealed_credential").notNull(),
    sessionUid: text("session_uid").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("terminal_tickets_user_idx").on(table.userId),
    index("terminal_tickets_expires_at_idx").on(table.expiresAt),
  ],
);
