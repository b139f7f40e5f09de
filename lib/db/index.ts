import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { fillPlaceholders, is, SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import * as schema from "@/models/schema";
import type { Config } from "../config";
import { log } from "../log";
import { processSlot } from "../process-state";
import { lockDataDir } from "../runtime";
import { EmbeddedDatabase } from "./embedded";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** A database handle or an open transaction: services accept either. */
export type Executor = Db | Tx;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
};

const migrationsFolder = path.join(process.cwd(), "models/migrations");

/**
 * Files the embedded PostgreSQL may hold open. Each is a descriptor of this process (PGlite's
 * file system opens the real file), and PostgreSQL keeps the files of every table and index it
 * has touched open, up to this bound (1,000 by default): the vacuum timer reaches a table that no
 * request reads every 10 minutes, so the count climbed for hours after a start. Past the bound
 * PostgreSQL closes the file used longest ago (and keeps 10 of the bound for itself). A first
 * start's migrations reach the bound at once; a later start climbs to it as requests and vacuums
 * touch tables, and no further.
 */
export const pgliteMaxFiles = 128;

// PGlite's defaults reserve ~730 MiB; these keep an idle embedded service well under 1 GiB.
export const pgliteStartParams = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "max_parallel_maintenance_workers=0",
  "-c",
  "io_method=sync",
  "-c",
  "shared_buffers=32MB",
  "-c",
  "work_mem=4MB",
  "-c",
  `max_files_per_process=${pgliteMaxFiles}`,
];

async function openPglite(dataDir: string): Promise<Database> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const release = lockDataDir(dataDir);
  try {
    const directory = path.resolve(dataDir, "pgdata");
    mkdirSync(directory, { recursive: true });
    const client = await EmbeddedDatabase.open(directory, pgliteStartParams);
    // Drizzle's PGlite driver asks only for the part of PGlite's interface the client has.
    const db = drizzle({ client: client as unknown as PGlite, schema });
    try {
      await migrate(db, { migrationsFolder });
    } catch (error) {
      await client.close();
      throw error;
    }
    const close = async () => {
      await client.close();
      release();
    };
    return { db: db as unknown as Db, kind: "pglite", close };
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(url: string, poolSize: number, statementTimeoutSeconds: number): Promise<Database> {
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  // A statement that runs longer than the timeout is cancelled by the server (SQLSTATE 57014),
  // so one slow query cannot hold a pool connection for ever; the request answers 503.
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 10_000,
    statement_timeout: statementTimeoutSeconds * 1000,
  });
  // A client whose server went away emits 'error', idle in the pool or checked out between two
  // statements of a transaction; without a handler the process would die. The pool repeats an
  // idle client's error as its own, which the client's handler has logged already.
  pool.on("connect", (client) =>
    client.on("error", (error) => log.warn("database connection lost", { error: error.message })),
  );
  pool.on("error", () => undefined);
  const db = drizzle({ client: pool, schema });
  // One instance migrates at a time when several start together, on the lock's own connection,
  // where a migration may take as long as it needs.
  const lock = await pool.connect();
  try {
    await lock.query("select pg_advisory_lock(7261041)");
    await lock.query("set statement_timeout = 0");
    await migrate(drizzle({ client: lock, schema }), { migrationsFolder });
  } finally {
    await lock.query("select pg_advisory_unlock(7261041)").catch(() => undefined);
    lock.release();
  }
  return { db: db as unknown as Db, kind: "postgres", close: () => pool.end() };
}

type DriverClient = {
  query: (query: unknown, values?: unknown[]) => Promise<{ rows: unknown[] }>;
  /** The embedded database, and its transactions: `query` as a named statement. */
  queryPrepared?: (name: string, text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
  embedded?: true;
};

const dialect = new PgDialect();
/** Each prepared statement's name, by its text. */
const preparedNames = new Map<string, string>();

/** A statement rendered for executePrepared, named after its text; the values that change may be drizzle placeholders (`sql.placeholder`). */
export type PreparedStatement = { name: string; text: string; params: unknown[] };

/** Renders `query` and names it after its text: once, for a statement on a hot path, its changing values as placeholders. */
export function prepared(query: SQL): PreparedStatement {
  const { sql: text, params } = dialect.sqlToQuery(query);
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `prepared_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return { name, text, params };
}

/**
 * Runs a statement as a prepared statement, in a transaction or not: each connection of a
 * PostgreSQL server's pool, and the embedded database's thread, parses and plans it once, not on
 * every call (planning was most of the time of a tunnel batch's statements on the embedded
 * database, docs/performance.md). For statements of constant text run hundreds of times a
 * second, their rows in a parameter (JSON, an array): the heartbeat batch, the tunnels'
 * ownership, the rows that go with every event. Drizzle SQL is rendered at each call; its text
 * must not vary with the data: each text is kept prepared on every connection for good.
 * `values` fill the placeholders of a statement from `prepared`.
 */
export async function executePrepared<Row>(
  db: Executor,
  statement: SQL | PreparedStatement,
  values: Record<string, unknown> = {},
): Promise<Row[]> {
  const { name, text, params } = is(statement, SQL) ? prepared(statement) : statement;
  const filled = fillPlaceholders(params, values);
  const client = (db._.session as unknown as { client: DriverClient }).client;
  const result = client.queryPrepared
    ? await client.queryPrepared(name, text, filled)
    : await client.query({ name, text, values: filled });
  return result.rows as Row[];
}

/**
 * Whether `db` is the embedded database (`EmbeddedDatabase`, known by its `embedded`, as Next.js
 * may load this module twice and `instanceof` would not hold across the copies), or one of its
 * transactions: one process, one connection, one transaction at a time. What other connections
 * would need there (advisory locks, notifications) has no one to wait for or to tell.
 */
export function isEmbedded(db: Executor): boolean {
  // The database's client, or the transaction's (embedded.ts marks both).
  const { client } = db._.session as unknown as { client: DriverClient };
  return client.embedded === true;
}

/**
 * Runs a transaction's independent writes. The embedded database gets them all at once and runs
 * them back to back on its thread, with no round trip to the event loop between them: the
 * transaction, during which no other statement runs, is over sooner when the event loop is busy.
 * A server's connection runs one query at a time: there they go one after the other (node-postgres
 * deprecates queuing them).
 */
export async function writeTogether(tx: Executor, writes: (() => Promise<unknown>)[]): Promise<void> {
  if (isEmbedded(tx)) await Promise.all(writes.map((write) => write()));
  else for (const write of writes) await write();
}

/** Runs `work` in `db`'s transaction if it is one (no savepoint), else in a new transaction. */
export function inTransaction<T>(db: Executor, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db instanceof PgTransaction ? work(db as Tx) : db.transaction(work);
}

export function openDatabase(
  config: Pick<Config, "DATABASE_URL" | "DATA_DIR" | "DATABASE_POOL_SIZE" | "DATABASE_STATEMENT_TIMEOUT_SECONDS">,
) {
  return config.DATABASE_URL
    ? openPostgres(config.DATABASE_URL, config.DATABASE_POOL_SIZE, config.DATABASE_STATEMENT_TIMEOUT_SECONDS)
    : openPglite(config.DATA_DIR);
}

const openDatabaseSlot = processSlot<Database>("database");

export function setDatabase(database: Database | undefined) {
  openDatabaseSlot.set(database);
}

export function getDb(): Db {
  const database = openDatabaseSlot.get();
  if (!database) throw new Error("database is not open");
  return database.db;
}
