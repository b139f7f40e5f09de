import { and, eq, lt, sql } from "drizzle-orm";
import { loginAttempts } from "@/models/login-attempts";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { tooManyRequests } from "../errors";

/** Failures in a row that lock a (source, account) pair; each further failure quadruples the lock. */
export const lockoutThreshold = 3;

export type LockoutKey = { source: string; subject: string };

const epochSeconds = (date: Date | null | undefined) => {
  const time = date?.getTime() ?? 0;
  return time > Date.now() ? Math.ceil(time / 1000) : 0;
};

/** Epoch seconds at which the pair's lock ends, or 0 when it is not locked. */
export async function lockedUntil(db: Executor, key: LockoutKey): Promise<number> {
  const [row] = await db
    .select({ lockedUntil: loginAttempts.lockedUntil })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.source, key.source), eq(loginAttempts.subject, key.subject)));
  return epochSeconds(row?.lockedUntil);
}

/**
 * Counts a login attempt as a failure before its password is checked, in one atomic statement,
 * so concurrent guesses cannot slip past the lock: the third attempt in a row locks the pair
 * for 1 minute, each further one quadruples the lock up to the maximum. An attempt made while
 * locked changes nothing and reports `wasLocked`. A correct password then clears the count.
 */
export async function countAttempt(
  db: Executor,
  key: LockoutKey,
  maxMinutes: number,
): Promise<{ wasLocked: boolean; lockedUntil: number }> {
  const failures = sql`${loginAttempts.failures} + 1`;
  const counted = await db
    .insert(loginAttempts)
    .values({ ...key, failures: 1, lockedUntil: null })
    .onConflictDoUpdate({
      target: [loginAttempts.source, loginAttempts.subject],
      set: {
        failures,
        lockedUntil: sql`case when ${failures} >= ${lockoutThreshold} then now() + make_interval(
          mins => least(power(4, least(${failures} - ${lockoutThreshold}, 20)), ${maxMinutes})::int) end`,
        updatedAt: sql`now()`,
      },
      // A locked pair is left as it is: no row comes back.
      setWhere: sql`${loginAttempts.lockedUntil} is null or ${loginAttempts.lockedUntil} <= now()`,
    })
    .returning({ lockedUntil: loginAttempts.lockedUntil });
  const [row] = counted;
  if (!row) return { wasLocked: true, lockedUntil: await lockedUntil(db, key) };
  return { wasLocked: false, lockedUntil: epochSeconds(row.lockedUntil) };
}

export const lockoutHeader = "X-Account-Lockout";

/**
 * Counts a login step (password, MFA code, recovery or reset code) of the pair; 429 while it is
 * locked. Returns the `X-Account-Lockout` header for the answer.
 */
export async function countLoginAttempt(db: Executor, key: LockoutKey): Promise<Record<string, string>> {
  const attempt = await countAttempt(db, key, getConfig().LOCKOUT_MAX_MINUTES);
  const headers = { [lockoutHeader]: String(attempt.lockedUntil) };
  if (attempt.wasLocked) throw tooManyRequests("too many failed logins: try again later", headers);
  return headers;
}

export async function clearFailures(db: Executor, key: LockoutKey) {
  await db
    .delete(loginAttempts)
    .where(and(eq(loginAttempts.source, key.source), eq(loginAttempts.subject, key.subject)));
}

/** Forgets counters untouched for longer than the longest lock; crosses tenants by nature. */
export async function unscopedPurgeStaleAttempts(db: Executor, maxMinutes: number) {
  await db
    .delete(loginAttempts)
    .where(lt(loginAttempts.updatedAt, sql`now() - make_interval(mins => ${maxMinutes + 60})`));
}
