import { rmSync } from "node:fs";
import type { SQL } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { openDatabase } from "@/lib/db";
import type { Data } from "./cli";
import { newDataDir } from "./data-dir";
import { createTestDatabase } from "./database";
import { type MailServer, startMailServer } from "./mail";
import { type RunningServer, startServer } from "./server";

export type OwnServer = {
  url: string;
  data: Data;
  output: () => string;
  /**
   * Runs SQL on the server's database, as tests that age rows do. PostgreSQL is shared; the
   * embedded database belongs to one process, so the server stops for it and starts again on
   * the same port and data. Returns the rows of the last statement.
   */
  query: (...statements: SQL[]) => Promise<Record<string, unknown>[]>;
  stop: () => Promise<void>;
};

/** A server of the test's own with `env`: PGlite in a new DATA_DIR, or a new database on TEST_DATABASE_URL. */
export async function startOwnServer(env: Record<string, string> = {}): Promise<OwnServer> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  const dataDir = newDataDir();
  const serverEnv = { ...env, DATA_DIR: dataDir, DATABASE_URL: database?.url };
  let server: RunningServer = await startServer(serverEnv);
  const port = String(server.port);
  let earlierOutput = "";
  return {
    url: server.url,
    data: { DATA_DIR: dataDir, DATABASE_URL: database?.url },
    output: () => earlierOutput + server.output(),
    query: async (...statements) => {
      if (!database) {
        await server.stop();
        earlierOutput += server.output();
      }
      // Two connections: on PostgreSQL one holds the migration lock while the other migrates.
      const opened = await openDatabase({
        DATA_DIR: dataDir,
        DATABASE_URL: database?.url,
        DATABASE_POOL_SIZE: 2,
        DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
      });
      try {
        let rows: Record<string, unknown>[] = [];
        for (const statement of statements) {
          rows = ((await opened.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;
        }
        return rows;
      } finally {
        await opened.close();
        if (!database) server = await startServer({ ...serverEnv, PORT: port });
      }
    },
    stop: async () => {
      await server.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file: an SMTP server in this process and a server of the file's own that mails
 * through it (with `env`), started before the file's tests and stopped after them.
 */
export function withMailingServer(env: Record<string, string>, use: (server: OwnServer, mail: MailServer) => void) {
  let server: OwnServer | undefined;
  let mail: MailServer | undefined;
  beforeAll(async () => {
    mail = await startMailServer();
    server = await startOwnServer({ SMTP_URL: mail.url, ...env });
    use(server, mail);
  });
  afterAll(async () => {
    await server?.stop();
    await mail?.close();
  });
}
