import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase } from "@/e2e/api/support/database";
import { type Database, openDatabase } from "../db";

/**
 * A migrated, empty database for service-level tests: a new PGlite data directory, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL. `close()` removes it.
 */
export async function openTestDatabase(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const scratch = await createTestDatabase(adminUrl);
    const database = await openDatabase({ DATABASE_URL: scratch.url, DATA_DIR: "", DATABASE_POOL_SIZE: 4 });
    return { ...database, close: async () => (await database.close(), await scratch.drop()) };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-unit-"));
  const database = await openDatabase({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: 1 });
  return {
    ...database,
    close: async () => (await database.close(), rmSync(dataDir, { recursive: true, force: true })),
  };
}
