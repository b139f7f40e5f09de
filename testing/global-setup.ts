import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ensureBuild } from "@/lib/build/ensure-build";
import { createDataTemplate } from "./data-dir";
import { createTestDatabase } from "./database";
import { type EngineAddress, startDockerEngine } from "./docker-engine";
import { startServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dataDir: string;
    databaseUrl: string;
    dockerEngine: EngineAddress;
  }
}

/**
 * One real server for the run: PGlite in a new data directory by default, or a new database on
 * the PostgreSQL server named by TEST_DATABASE_URL. On PGlite, also the template that later data
 * directories copy (./data-dir.ts); the run's server starts on an empty one, as a first install
 * does. And a Docker engine on the loopback for the connectors' tests, which the run's server may
 * dial (CONNECTOR_ALLOWED_CIDRS): an engine that cannot start fails the run.
 */
export default async function setup(project: TestProject) {
  ensureBuild();
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  const [server, template, engine] = await Promise.all([
    startServer({
      DATABASE_URL: database?.url,
      CONNECTOR_ALLOWED_CIDRS: "127.0.0.1/32",
      CONNECTOR_SYNC_SECONDS: "1",
      // Webhook receivers of the tests listen on 127.0.0.1; retries come after 1, 4, 16... seconds.
      WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
      WEBHOOK_RETRY_SECONDS: "1",
    }),
    adminUrl ? undefined : createDataTemplate(),
    startDockerEngine(),
  ]);
  // Test processes start after the global setup and inherit its environment.
  if (template) process.env.TEST_DATA_TEMPLATE = template;
  project.provide("baseUrl", server.url);
  project.provide("dataDir", server.dataDir);
  project.provide("databaseUrl", database?.url ?? "");
  const { socket, port, tlsPort, client, strangerClient } = engine;
  project.provide("dockerEngine", { socket, port, tlsPort, client, strangerClient });
  return async () => {
    await Promise.all([server.stop(), engine.stop()]);
    await database?.drop();
    rmSync(server.dataDir, { recursive: true, force: true });
    if (template) rmSync(template, { recursive: true, force: true });
  };
}
