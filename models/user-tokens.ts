import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { users } from "./users";

/**
 * What a token proves: the link of the activation mail, of the password-recovery mail, the
 * password step of an MFA login (`X-MFA-Token`), one of the two codes of an MFA reset, or the
 * link of a namespace's invitation mail.
 */
export const tokenPurposes = [
  "activation",
  "password_reset",
  "mfa_login",
  "mfa_reset_main",
  "mfa_reset_recovery",
  "invitation",
] as const;
export type TokenPurpose = (typeof tokenPurposes)[number];

/** Single-use tokens sent to a user; only their SHA-256 is stored. */
export const userTokens = pgTable(
  "user_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: tokenPurposes }).notNull(),
    tokenHash: text("token_hash").notNull(),
    // Wrong codes tried with this token (MFA login).
    failures: integer("failures").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("user_tokens_purpose_hash_key").on(table.purpose, table.tokenHash),
    index().on(table.userId, table.purpose),
    index().on(table.expiresAt),
  ],
);
