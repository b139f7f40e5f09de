import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { namespaces } from "./namespaces";
import { users } from "./users";

/**
 * One-time tokens of the browser terminal, for a minute between `POST /ws/ssh` and the WebSocket
 * that follows, on whichever instance it lands. The row is keyed by the token's SHA-256 and
 * holds the credential sealed under a key derived from the token, which only the browser has.
 * A token asked for without a user (ShellHub's UI) has no user and no namespace, and names a
 * device uid nobody checked yet: the device login decides, as at the gateway, so the device is
 * no foreign key (an unknown uid must not answer differently from a known one).
 */
export const terminalTickets = pgTable(
  "terminal_tickets",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id").references(() => namespaces.tenantId, { onDelete: "cascade" }),
    deviceUid: text("device_uid").notNull(),
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
