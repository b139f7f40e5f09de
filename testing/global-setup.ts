import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ensureBuild } from "@/lib/build/ensure-build";
import { createTestDatabase } from "./database";
import { startServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dataDir: string;
    databaseUrl: string;
  }
}

/**
 * One real server for the run: PGlite in a new data directory by default, or a new database on
 * the PostgreSQL server named by TEST_DATABASE_URL.
 */
export default async function setup(project: TestProject) {
  ensureBuild();
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  const server = await startServer({ DATABASE_URL: database?.url });
  project.provide("baseUrl", server.url);
  project.provide("dataDir", server.dataDir);
  project.provide("databaseUrl", database?.url ?? "");
  return async () => {
    await server.stop();
    await database?.drop();
    rmSync(server.dataDir, { recursive: true, force: true });
  };
}
