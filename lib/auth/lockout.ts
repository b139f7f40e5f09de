import { and, eq, lt, sql } from "drizzle-orm";
import { loginAttempts } from "@/models/login-attempts";
import type { Executor } from "../db";

/** Failures in a row that lock a (source, account) pair; each further failure quadruples the lock. */
export const lockoutThreshold = 3;

export type LockoutKey = { source: string; subject: string };

/** Epoch seconds at which the pair's lock ends, or 0 when it is not locked. */
export async function lockedUntil(db: Executor, key: LockoutKey): Promise<number> {
  const [row] = await db
    .select({ lockedUntil: loginAttempts.lockedUntil })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.source, key.source), eq(loginAttempts.subject, key.subject)));
  const until = row?.lockedUntil?.getTime() ?? 0;
  return until > Date.now() ? Math.ceil(until / 1000) : 0;
}

/**
 * Counts one failure in a single atomic statement and returns the resulting lock end
 * (epoch seconds, 0 when not locked): 1 minute at the threshold, then 4, 16, ... up to the maximum.
 */
export async function recordFailure(db: Executor, key: LockoutKey, maxMinutes: number): Promise<number> {
  const failures = sql`${loginAttempts.failures} + 1`;
  const [row] = await db
    .insert(loginAttempts)
    .values({ ...key, failures: 1, lockedUntil: null })
    .onConflictDoUpdate({
      target: [loginAttempts.source, loginAttempts.subject],
      set: {
        failures,
        lockedUntil: sql`case when ${failures} >= ${lockoutThreshold}
          then now() + make_interval(mins => least(power(4, ${failures} - ${lockoutThreshold}), ${maxMinutes})::int)
          else null end`,
        updatedAt: sql`now()`,
      },
    })
    .returning({ lockedUntil: loginAttempts.lockedUntil });
  const until = row?.lockedUntil?.getTime() ?? 0;
  return until > 0 ? Math.ceil(until / 1000) : 0;
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
