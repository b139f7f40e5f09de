import { lt, sql } from "drizzle-orm";
import { rateLimits } from "@/models/rate-limits";
import type { Executor } from "../db";
import { tooManyRequests } from "../errors";

/**
 * Counts one event against `key` in a fixed window, in one atomic statement shared by every
 * instance, and refuses (429) once the window holds more than `limit` events.
 */
export async function consumeRateLimit(db: Executor, key: string, limit: number, windowSeconds: number) {
  const isExpired = sql`${rateLimits.windowStart} <= now() - make_interval(secs => ${windowSeconds})`;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart: sql`now()`, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${isExpired} then 1 else ${rateLimits.count} + 1 end`,
        windowStart: sql`case when ${isExpired} then now() else ${rateLimits.windowStart} end`,
      },
    })
    .returning({ count: rateLimits.count, windowStart: rateLimits.windowStart });
  if (row && row.count > limit) {
    const retryAfter = Math.max(1, Math.ceil((row.windowStart.getTime() + windowSeconds * 1000 - Date.now()) / 1000));
    throw tooManyRequests("too many requests: try again later", { "Retry-After": String(retryAfter) });
  }
}

/** Forgets windows that ended long ago; crosses tenants by nature. */
export async function unscopedPurgeRateLimits(db: Executor) {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, sql`now() - interval '1 day'`));
}
