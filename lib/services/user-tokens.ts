import { randomBytes, randomInt } from "node:crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { type TokenPurpose, userTokens } from "@/models/user-tokens";
import { hashToken } from "../auth/token-hash";
import type { Executor } from "../db";

/** A link token: 256 random bits. */
export const newLinkToken = () => randomBytes(32).toString("base64url");

// No 0/O or 1/I: codes are read from a mail and typed.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A code a person types (recovery and reset codes): 10 characters, 50 random bits. */
export const newTypedCode = () =>
  Array.from({ length: 10 }, () => codeAlphabet[randomInt(codeAlphabet.length)]).join("");

/** Typed codes are compared without regard to case, blanks and hyphens (people group what they read). */
export const normalizeCode = (code: string) => code.replace(/[\s-]+/g, "").toUpperCase();

/**
 * Stores a new single-use token of `purpose` for the user, valid `ttlSeconds`, and returns it;
 * with `replace`, the user's earlier tokens of that purpose die (only the newest link works).
 */
export async function issueToken(
  db: Executor,
  userId: string,
  purpose: TokenPurpose,
  ttlSeconds: number,
  { token = newLinkToken(), replace = true }: { token?: string; replace?: boolean } = {},
): Promise<string> {
  if (replace) await forgetTokens(db, userId, purpose);
  await db.insert(userTokens).values({
    userId,
    purpose,
    tokenHash: hashToken(token),
    expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`,
  });
  return token;
}

/**
 * Uses up a token: deletes it in one statement when it is live (and the user's, when `userId`
 * is given) and returns its user id; undefined for an unknown, expired or used token.
 */
export async function consumeToken(
  db: Executor,
  purpose: TokenPurpose,
  token: string,
  userId?: string,
): Promise<string | undefined> {
  const [row] = await db
    .delete(userTokens)
    .where(
      and(
        eq(userTokens.purpose, purpose),
        eq(userTokens.tokenHash, hashToken(token)),
        gt(userTokens.expiresAt, sql`now()`),
        userId === undefined ? undefined : eq(userTokens.userId, userId),
      ),
    )
    .returning({ userId: userTokens.userId });
  return row?.userId;
}

export async function forgetTokens(db: Executor, userId: string, purpose: TokenPurpose) {
  await db.delete(userTokens).where(and(eq(userTokens.userId, userId), eq(userTokens.purpose, purpose)));
}

/** Forgets expired tokens; crosses tenants by nature. */
export async function unscopedPurgeExpiredTokens(db: Executor) {
  await db.delete(userTokens).where(lt(userTokens.expiresAt, sql`now()`));
}
