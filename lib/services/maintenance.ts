import { sql } from "drizzle-orm";
import type { Executor } from "../db";

/**
 * The embedded database runs no autovacuum (PostgreSQL in single-user mode): without VACUUM its
 * dead rows would stay and, after two billion transactions (months for a busy fleet, which
 * writes a transaction per heartbeat batch), transaction ids would wrap around. Each call
 * vacuums the one table vacuumed longest ago, so that the event loop, which the embedded
 * database holds while it works, pauses for one table at a time. Returns the table's name.
 */
export async function unscopedVacuumStalestTable(db: Executor): Promise<string | undefined> {
  const result = await db.execute(
    sql`select relname from pg_stat_user_tables where schemaname = 'public' order by last_vacuum asc nulls first, relname limit 1`,
  );
  const name = (result as unknown as { rows: { relname: string }[] }).rows[0]?.relname;
  if (name === undefined) return undefined;
  await db.execute(sql`vacuum (analyze) ${sql.identifier(name)}`);
  return name;
}
