import { type Name, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db";

/**
 * The embedded database runs no autovacuum (PostgreSQL in single-user mode): without VACUUM its
 * dead rows would stay and, after two billion transactions (months for a busy fleet, which
 * writes a transaction per heartbeat batch), transaction ids would wrap around. Each call
 * vacuums the one table vacuumed longest ago, so that the requests' statements, which the embedded
 * database runs one at a time, wait for one table at a time. Returns the table's name.
 */
export const unscopedVacuumStalestTable = (db: Executor) =>
  onFirstTable(
    db,
    sql`select relname from pg_stat_user_tables where schemaname = 'public' order by last_vacuum asc nulls first, relname limit 1`,
    (table) => sql`vacuum (analyze) ${table}`,
  );

/**
 * Autovacuum's rule for the embedded database, which has none: vacuums the table with the most
 * dead rows once they pass 50 plus a fifth of its live rows (autovacuum's default threshold) and
 * it was not vacuumed in the last `minimumSeconds`, or at once when they outnumber the live ones.
 * In a fleet on REST heartbeats it is their presence rows: each heartbeat leaves a
 * dead row version and an index entry that the device list's index scan steps over until a
 * vacuum removes them (models/device-presence.ts). Every statement waits while a vacuum runs.
 * Past a few tens of thousands of rows its length is mostly the table's and its indexes' size,
 * so a large table is vacuumed at most every `minimumSeconds`; a small one whose rows are all
 * rewritten in seconds (10,000 devices at 3,300 heartbeats/s) as soon as the dead rows outnumber
 * the live ones, which keeps each vacuum short. It does not analyze (unscopedAnalyzeDueTable
 * does, less often). Returns the table's name, if one was due.
 */
export const unscopedVacuumDueTable = (db: Executor, minimumSeconds = 30) =>
  onFirstTable(
    db,
    sql`select relname from pg_stat_user_tables
      where schemaname = 'public' and (n_dead_tup > 50 + n_live_tup or n_dead_tup > 50 + 0.2 * n_live_tup
        and coalesce(last_vacuum, '-infinity') < now() - make_interval(secs => ${minimumSeconds}))
      order by n_dead_tup desc, relname limit 1`,
    (table) => sql`vacuum ${table}`,
  );

/**
 * Autovacuum's analyze rule for the embedded database: analyzes the table with the most rows
 * changed since its last analyze once they pass 50 plus a tenth of its live rows, and only if
 * it was not analyzed in the last `minimumSeconds`: heartbeats change every presence row every
 * few seconds, and statistics that old still plan the same. Returns the table's name, if one was due.
 */
export const unscopedAnalyzeDueTable = (db: Executor, minimumSeconds = 600) =>
  onFirstTable(
    db,
    sql`select relname from pg_stat_user_tables
      where schemaname = 'public' and n_mod_since_analyze > 50 + 0.1 * n_live_tup
        and coalesce(last_analyze, '-infinity') < now() - make_interval(secs => ${minimumSeconds})
      order by n_mod_since_analyze desc, relname limit 1`,
    (table) => sql`analyze ${table}`,
  );

/** Runs `command` on the table `choice` names (a query of one `relname`), if any; returns its name. */
async function onFirstTable(db: Executor, choice: SQL, command: (table: Name) => SQL): Promise<string | undefined> {
  const result = await db.execute(choice);
  const name = (result as unknown as { rows: { relname: string }[] }).rows[0]?.relname;
  if (name !== undefined) await db.execute(command(sql.identifier(name)));
  return name;
}
