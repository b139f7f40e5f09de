import { readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { newDataDir } from "@/testing/data-dir";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import { type Db, openDatabase, pgliteMaxFiles } from "../db";
import {
  unscopedAnalyzeDueTable,
  unscopedRunsAutovacuum,
  unscopedVacuumDueTable,
  unscopedVacuumStalestTable,
} from "./maintenance";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

async function rows<T>(query: ReturnType<typeof sql>) {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

describe("whether the database runs autovacuum", () => {
  it.skipIf(process.env.TEST_DATABASE_URL)(
    "is never so for the embedded database, whatever its setting reads",
    async () => {
      const [setting] = await rows<{ autovacuum: string }>(sql`select current_setting('autovacuum') as autovacuum`);
      expect(setting?.autovacuum).toBe("on");
      expect(await unscopedRunsAutovacuum(db, "pglite")).toBe(false);
    },
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    "is the PostgreSQL server's setting, and its vacuums run there too",
    async () => {
      const [setting] = await rows<{ autovacuum: string }>(sql`show autovacuum`);
      expect(await unscopedRunsAutovacuum(db, "postgres")).toBe(setting?.autovacuum === "on");
      const tables = (
        await rows<{ relname: string }>(sql`select relname from pg_stat_user_tables where schemaname = 'public'`)
      ).map((row) => row.relname);
      expect(tables).toContain(await unscopedVacuumStalestTable(db));
      // 100 new devices, their presence rows then rewritten twice: due for statistics and for a
      // vacuum. Counts reach other connections once the writing one flushes them.
      const scope = await seedScope(db);
      await db.transaction(async (tx) => {
        for (let index = 0; index < 100; index++) await insertDevice(tx, scope.tenantId);
        await tx.execute(sql`update device_presence set last_seen = now()`);
        await tx.execute(sql`update device_presence set last_seen = now()`);
        await tx.execute(sql`select pg_stat_force_next_flush()`);
      });
      await expect.poll(() => unscopedAnalyzeDueTable(db, 0), { timeout: 5_000 }).toBeDefined();
      await expect.poll(() => unscopedVacuumDueTable(db, 0), { timeout: 5_000 }).toBe("device_presence");
    },
  );
});

// The rules are checked on the embedded database: a PostgreSQL server publishes vacuum times to
// other connections of a pool only after a delay.
describe.skipIf(process.env.TEST_DATABASE_URL)("vacuuming the embedded database", () => {
  it("vacuums one table per call, the one vacuumed longest ago, until every table had its turn", async () => {
    const tables = (
      await rows<{ relname: string }>(sql`select relname from pg_stat_user_tables where schemaname = 'public'`)
    ).map((row) => row.relname);
    expect(tables).toContain("devices");
    const vacuumed: (string | undefined)[] = [];
    for (const _ of tables) vacuumed.push(await unscopedVacuumStalestTable(db));
    expect(vacuumed.toSorted()).toEqual(tables.toSorted());
    const never = await rows(
      sql`select relname from pg_stat_user_tables where schemaname = 'public' and last_vacuum is null`,
    );
    expect(never).toEqual([]);
    // The next round starts again with the first table of the last one.
    expect(await unscopedVacuumStalestTable(db)).toBe(vacuumed[0]);
  });

  it("vacuums a table once its dead rows pass autovacuum's threshold, and none before", async () => {
    // Statistics reach pg_stat_user_tables at most once a second, unless a flush is asked for.
    // The tables were all vacuumed moments ago: the interval between two vacuums is waived here.
    const vacuumDue = async (minimumSeconds = 0) => {
      await db.execute(sql`select pg_stat_force_next_flush()`);
      return unscopedVacuumDueTable(db, minimumSeconds);
    };
    const scope = await seedScope(db);
    for (let index = 0; index < 100; index++) await insertDevice(db, scope.tenantId);
    await db.execute(sql`select pg_stat_force_next_flush()`);
    // Every table vacuumed: none is due.
    for (const _ of await rows(sql`select relname from pg_stat_user_tables where schemaname = 'public'`)) {
      await unscopedVacuumStalestTable(db);
    }
    expect(await vacuumDue()).toBeUndefined();
    // 100 live rows: due past 50 + 20 dead ones.
    await db.execute(sql`update device_presence set last_seen = now() where uid in (select uid from devices limit 60)`);
    expect(await vacuumDue()).toBeUndefined();
    await db.execute(sql`update device_presence set last_seen = now() where uid in (select uid from devices limit 20)`);
    expect(await vacuumDue()).toBe("device_presence");
    const [after] = await rows<{ dead: number }>(
      sql`select n_dead_tup::int as dead from pg_stat_user_tables where relname = 'device_presence'`,
    );
    expect(after?.dead).toBe(0);
    expect(await vacuumDue()).toBeUndefined();
    // The vacuum left the statistics alone: analyzing is the other rule's.
    const [analyzed] = await rows<{ changed: number }>(
      sql`select n_mod_since_analyze::int as changed from pg_stat_user_tables where relname = 'device_presence'`,
    );
    expect(analyzed?.changed).toBe(80);
  });

  it("vacuums a table vacuumed moments ago only once its dead rows outnumber the live ones", async () => {
    const vacuumDue = async () => {
      await db.execute(sql`select pg_stat_force_next_flush()`);
      return unscopedVacuumDueTable(db);
    };
    const scope = await seedScope(db);
    for (let index = 0; index < 100; index++) await insertDevice(db, scope.tenantId);
    await db.execute(sql`select pg_stat_force_next_flush()`);
    for (const _ of await rows(sql`select relname from pg_stat_user_tables where schemaname = 'public'`)) {
      await unscopedVacuumStalestTable(db);
    }
    const touchAll = sql`update device_presence set last_seen = now()`;
    // As many dead rows as live ones (100 or more): past autovacuum's threshold, but within 30 s of the last vacuum.
    await db.execute(touchAll);
    expect(await vacuumDue()).toBeUndefined();
    // Twice as many dead rows as live ones, whatever the interval.
    await db.execute(touchAll);
    expect(await vacuumDue()).toBe("device_presence");
  });

  it("analyzes the table most changed since its statistics, past autovacuum's threshold, at most once in the interval", async () => {
    const analyzeDue = async (minimumSeconds?: number) => {
      await db.execute(sql`select pg_stat_force_next_flush()`);
      return unscopedAnalyzeDueTable(db, minimumSeconds);
    };
    const scope = await seedScope(db);
    await db.execute(sql`select pg_stat_force_next_flush()`);
    for (const _ of await rows(sql`select relname from pg_stat_user_tables where schemaname = 'public'`)) {
      await unscopedVacuumStalestTable(db);
    }
    expect(await analyzeDue(0)).toBeUndefined();
    // 100 new devices: 100 rows changed in `devices`, `device_presence` and their namespace's count, past 50 + 10.
    for (let index = 0; index < 100; index++) await insertDevice(db, scope.tenantId);
    await db.execute(sql`update device_presence set last_seen = now() where uid in (select uid from devices limit 10)`);
    // Analyzed moments ago by the vacuum round: not again within the interval.
    expect(await analyzeDue()).toBeUndefined();
    // The most changed first (the presence rows, 110 changes), one table per call, until none is due.
    const analyzed = [await analyzeDue(0), await analyzeDue(0), await analyzeDue(0)];
    expect(analyzed[0]).toBe("device_presence");
    expect(analyzed.slice(1).toSorted()).toEqual(["device_counts", "devices"]);
    expect(await analyzeDue(0)).toBeUndefined();
  });
});

/** This process's descriptors open on a file under `directory`. */
function openFilesUnder(directory: string) {
  const prefix = `${realpathSync(directory)}/`;
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(prefix);
    } catch {
      return false;
    }
  }).length;
}

describe.skipIf(process.env.TEST_DATABASE_URL)("the embedded database's open files", () => {
  // Each file PostgreSQL opens is a descriptor of the server's process, and it keeps the files of
  // every relation it touched open: a vacuum reaches tables and indexes no request reads.
  it("stay within their bound however many tables are vacuumed", async () => {
    const dataDir = newDataDir();
    const database = await openDatabase({
      DATA_DIR: dataDir,
      DATABASE_POOL_SIZE: 1,
      DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
    });
    try {
      const tables = (
        (await database.db.execute(
          sql`select relname from pg_stat_user_tables where schemaname = 'public'`,
        )) as unknown as { rows: unknown[] }
      ).rows;
      const counts = [openFilesUnder(dataDir)];
      for (const _ of [...tables, ...tables]) {
        await unscopedVacuumStalestTable(database.db);
        counts.push(openFilesUnder(dataDir));
      }
      expect(Math.max(...counts)).toBeLessThanOrEqual(pgliteMaxFiles);
      // The second round, once every table had its turn, opens no more than the first did at its
      // peak (near the bound, PostgreSQL closes and opens files as it goes).
      expect(counts.at(-1)).toBeLessThanOrEqual(Math.max(...counts.slice(0, tables.length + 1)));
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
