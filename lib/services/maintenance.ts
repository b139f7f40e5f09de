import { type Name, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../db";

/**
 * Whether the database vacuums and analyzes its tables by itself: a PostgreSQL server with
 * autovacuum on. The embedded database runs none (PostgreSQL in single-user mode, whatever its
 * `autovacuum` setting reads), and a server may have it turned off: this server then applies
 * autovacuum's rules itself (lib/timers.ts), or the presence rows every heartbeat rewrites would
 * pile up dead, and the planner would go without statistics.
 */
export async function unscopedRunsAutovacuum(db: Executor, kind: "pglite" | "postgres"): Promise<boolean> {
  if (kind === "pglite") return false;
  const result = await db.execute(sql`select current_setting('autovacuum') = 'on' as "isOn"`);
  return (result as unknown as { rows: { isOn: boolean }[] }).rows[0]?.isOn === true;
}

/**
 * Without VACUUM a table's dead rows stay and, after two billion transactions (months for a busy
 * fleet, which writes a transaction per heartbeat batch), transaction ids would wrap around. Each
 * call vacuums the one table vacuumed longest ago, so that on the embedded database, which runs
 * the requests' statements one at a time, they wait for one table at a time. Returns the table's name.
 */
export const unscopedVacuumStalestTable = (db: Executor) =>
  onFirstTable(
    db,
    sql`select relname from pg_stat_user_tables where schemaname = 'public' order by last_vacuum asc nulls first, relname limit 1`,
    (table) => sql`vacuum (analyze, skip_locked) ${table}`,
  );

/**
 * Autovacuum's rule, for a database that runs none (unscopedRunsAutovacuum): vacuums the table
 * with the most dead rows once they pass 50 plus a fifth of its live rows (autovacuum's default
 * threshold) and it was not vacuumed in the last `minimumSeconds`, or at once when they outnumber
 * the live ones.
 * In a fleet on REST heartbeats it is their presence rows: each heartbeat leaves a
 * dead row version and an index entry that the device list's index scan steps over until a
 * vacuum removes them (models/device-presence.ts). On the embedded database every statement waits
 * while a vacuum runs.
 * Past a few tens of thousands of rows its length is mostly the table's and its indexes' size,
 * so a large table is vacuumed at most every `minimumSeconds`; a small one whose rows are all
 * rewritten in seconds (10,000 devices at 3,300 heartbeats/s) as soon as the dead rows outnumber
 * the live ones, which keeps each vacuum short. It does not analyze (unscopedAnalyzeDueTable
 * does, less often). A table another instance is vacuuming is skipped, not waited for. Returns
 * the table's name, if one was due.
 */
export const unscopedVacuumDueTable = (db: Executor, minimumSeconds = 30) =>
  onFirstTable(
    db,
    sql`select relname from pg_stat_user_tables
      where schemaname = 'public' and (n_dead_tup > 50 + n_live_tup or n_dead_tup > 50 + 0.2 * n_live_tup
        and coalesce(last_vacuum, '-infinity') < now() - make_interval(secs => ${minimumSeconds}))
      order by n_dead_tup desc, relname limit 1`,
    (table) => sql`vacuum (skip_locked) ${table}`,
  );

/**
 * Autovacuum's analyze rule, for a database that runs none: analyzes the table with the most rows
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
    (table) => sql`analyze (skip_locked) ${table}`,
  );

/** Runs `command` on the table `choice` names (a query of one `relname`), if any; returns its name. */
async function onFirstTable(db: Executor, choice: SQL, command: (table: Name) => SQL): Promise<string | undefined> {
  const result = await db.execute(choice);
  const name = (result as unknown as { rows: { relname: string }[] }).rows[0]?.relname;
  if (name !== undefined) await db.execute(command(sql.identifier(name)));
  return name;
}
