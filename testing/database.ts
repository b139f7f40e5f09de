import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Database, type Db, openDatabase } from "@/lib/db";
import { newDataDir } from "./data-dir";

/** A fresh, empty PostgreSQL database on the server named by `adminUrl`, dropped by `drop()`. */
export async function createTestDatabase(adminUrl: string) {
  const name = `das_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * A migrated, empty database for service-level tests: a new PGlite data directory, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL. `close()` removes it.
 */
export async function openTestDatabase(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const scratch = await createTestDatabase(adminUrl);
    const database = await openDatabase({
      DATABASE_URL: scratch.url,
      DATA_DIR: "",
      DATABASE_POOL_SIZE: 4,
      DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
    });
    const close = async () => {
      await database.close();
      await scratch.drop();
    };
    return { ...database, close };
  }
  const dataDir = newDataDir();
  const database = await openDatabase({
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: 1,
    DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
  });
  const close = async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { ...database, close };
}

/** A test database for the calling test file: opened before its tests, removed after them. */
export function withTestDatabase(use: (db: Db) => void) {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase();
    use(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });
}
