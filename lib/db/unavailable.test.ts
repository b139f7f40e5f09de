import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "@/testing/database";
import { hasPrivatePostgres, startPrivatePostgres } from "@/testing/private-postgres";
import { freePort } from "@/testing/server";
import type { Database } from ".";
import { isDatabaseUnavailable } from "./unavailable";

/** The error a statement fails with, through Drizzle as the services run them. */
async function failureOf(pool: pg.Pool, statement = sql`select 1`): Promise<unknown> {
  try {
    await drizzle({ client: pool }).execute(statement);
  } catch (error) {
    return error;
  }
  throw new Error("the statement did not fail");
}

describe("isDatabaseUnavailable", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it("is true when no database server listens", async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` });
    try {
      expect(isDatabaseUnavailable(await failureOf(pool))).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("is false for a statement the database refuses", async () => {
    const error = await database.db.execute(sql`select * from no_such_table`).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(new Error("something else"))).toBe(false);
  });

  it("is true for a statement cancelled by the pool's statement timeout (a busy server: 503)", async (context) => {
    const url = process.env.TEST_POSTGRES_URL ?? process.env.TEST_DATABASE_URL;
    if (!url) return context.skip("no PostgreSQL server (TEST_POSTGRES_URL)");
    const pool = new pg.Pool({ connectionString: url, max: 1, statement_timeout: 50 });
    try {
      const error = await failureOf(pool, sql`select pg_sleep(2)`);
      expect((error as { cause?: { code?: string } }).cause?.code).toBe("57014");
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("is true while a PostgreSQL server is stopped, and the same pool works once it is back", async (context) => {
    if (!hasPrivatePostgres()) return context.skip("PostgreSQL 15's programs are not installed");
    const postgres = await startPrivatePostgres();
    const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
    pool.on("error", () => {});
    try {
      await drizzle({ client: pool }).execute(sql`select 1`);
      // A statement running when the server stops, and one sent while it is down.
      const running = failureOf(pool, sql`select pg_sleep(30)`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      postgres.stop();
      expect(isDatabaseUnavailable(await running)).toBe(true);
      expect(isDatabaseUnavailable(await failureOf(pool))).toBe(true);
      postgres.start();
      const { rows } = await drizzle({ client: pool }).execute(sql`select 1 as one`);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
      postgres.remove();
    }
  });
});
