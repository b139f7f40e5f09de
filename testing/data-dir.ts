import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/db";

/**
 * Opening a new embedded database runs initdb and every migration: seconds of CPU, for each
 * test server and each service test file. The run's global setup makes one migrated database
 * (`createDataTemplate`) and names it in TEST_DATA_TEMPLATE; new data directories start as
 * copies of it.
 */

/** A data directory with a migrated embedded database that nothing has used yet; removed by the caller. */
export async function createDataTemplate(): Promise<string> {
  const directory = mkdtempSync(path.join(tmpdir(), "das-template-"));
  const database = await openDatabase({
    DATA_DIR: directory,
    DATABASE_POOL_SIZE: 1,
    DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
  });
  await database.close();
  return directory;
}

/** A new DATA_DIR: a copy of the template when there is one, else empty. */
export function newDataDir(): string {
  const directory = mkdtempSync(path.join(tmpdir(), "das-test-"));
  const template = process.env.TEST_DATA_TEMPLATE;
  if (template) cpSync(path.join(template, "pgdata"), path.join(directory, "pgdata"), { recursive: true });
  return directory;
}
