import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db";

/**
 * The embedded database runs no autovacuum (PostgreSQL in single-user mode): without VACUUM its
 * dead rows would stay and, after two billion transactions (months for a busy fleet, which
 * writes a transaction per heartbeat batch), transaction ids would wrap around. Each call
 * vacuums the one table vacuumed longest ago, so that the requests' statements, which the embedded
 * database runs one at a time, wait for one table at a time. Returns the table's name.
 */
export const unscopedVacuumStalestTable = (db: Executor) =>
  vacuumFirst(
    db,
    sql`select relname from pg_stat_user_tables where schemaname = 'public' order by last_vacuum asc nulls first, relname limit 1`,
  );

/**
 * Autovacuum's rule for the embedded database, which has none: vacuums the table with the most
 * dead rows once they pass 50 plus a fifth of its live rows (autovacuum's default threshold).
 * In a fleet on REST heartbeats it is their presence rows: each heartbeat leaves a
 * dead row version and an index entry that the device list's index scan steps over until a
 * vacuum removes them (models/device-presence.ts). Returns the table's name, if one was due.
 */
export const unscopedVacuumDueTable = (db: Executor) =>
  vacuumFirst(
    db,
    sql`select relname from pg_stat_user_tables
      where schemaname = 'public' and n_dead_tup > 50 + 0.2 * n_live_tup
      order by n_dead_tup desc, relname limit 1`,
  );

/** Vacuums (and analyzes) the table `choice` names (a query of one `relname`); returns its name, if any. */
async function vacuumFirst(db: Executor, choice: SQL): Promise<string | undefined> {
  const result = await db.execute(choice);
  const name = (result as unknown as { rows: { relname: string }[] }).rows[0]?.relname;
  if (name === undefined) return undefined;
  await db.execute(sql`vacuum (analyze) ${sql.identifier(name)}`);
  return name;
}
