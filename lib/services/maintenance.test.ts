import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import type { Db } from "../db";
import { unscopedVacuumStalestTable } from "./maintenance";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

async function rows<T>(query: ReturnType<typeof sql>) {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

// Only the embedded database is vacuumed by the server; PostgreSQL servers run autovacuum (and
// publish vacuum times to other connections only after a delay).
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
});
