import { boolean, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * MFA recovery codes, hashed. `isPending`: issued by Generate and waiting for Enable. `usedAt`:
 * spent by Recover MFA, which leaves it good for Disable MFA for a while.
 */
export const mfaRecoveryCodes = pgTable(
  "mfa_recovery_codes",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    isPending: boolean("is_pending").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.userId, table.codeHash] })],
);
