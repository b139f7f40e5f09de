import { boolean, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    // Stored lower-case: usernames and e-mails are matched without regard to case.
    username: text("username").notNull(),
    email: text("email").notNull(),
    recoveryEmail: text("recovery_email"),
    passwordHash: text("password_hash").notNull(),
    isConfirmed: boolean("is_confirmed").notNull().default(true),
    emailMarketing: boolean("email_marketing").notNull().default(false),
    mfaEnabled: boolean("mfa_enabled").notNull().default(false),
    // The TOTP secret, AES-GCM encrypted (lib/auth/secret-box.ts): the one Generate issued until
    // Enable, then the active one.
    mfaSecret: text("mfa_secret"),
    // The last TOTP time step accepted, so that no code is accepted twice.
    mfaLastStep: integer("mfa_last_step"),
    // The namespace the user last worked in; login hands out a token for it.
    lastTenant: uuid("last_tenant"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex("users_username_key").on(table.username), uniqueIndex("users_email_key").on(table.email)],
);

export type UserRow = typeof users.$inferSelect;
