import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type SeededNamespace, seedNamespace } from "../api/support/client";
import { type RunningServer, startServer } from "../api/support/server";
import {
  acceptAgentDevice,
  createAccount,
  isRoot,
  type RunningAgent,
  sshPort,
  sshWithPassword,
  startAgent,
} from "./support";

// Several instances share one PostgreSQL server; the embedded database has one instance only.
const isPostgres = inject("databaseUrl") !== "";

describe.skipIf(!isRoot || !isPostgres)("a second instance reaches a device whose tunnel is on the first", () => {
  let second: RunningServer;
  let namespace: SeededNamespace;
  let agent: RunningAgent;
  let account: ReturnType<typeof createAccount>;

  beforeAll(async () => {
    // The test run's server holds the tunnel; the second instance shares its database and secret.
    const secret = readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();
    second = await startServer({ DATABASE_URL: inject("databaseUrl"), INTERNAL_SECRET: secret });
    namespace = await seedNamespace();
    account = createAccount();
    agent = startAgent(inject("baseUrl"), namespace.tenantId);
    await acceptAgentDevice(agent.hostname, { token: namespace.owner.tenantToken });
    await agent.tunnelUp();
  });

  afterAll(async () => {
    await agent?.stop();
    account?.remove();
    await second?.stop();
    if (second) rmSync(second.dataDir, { recursive: true, force: true });
  });

  it("logs in and runs a command through the other instance's gateway", async () => {
    const port = await sshPort(second.url);
    const target = `${account.name}@${namespace.name}.${agent.hostname}@127.0.0.1`;
    const result = await sshWithPassword(port, account.password, [target, "echo relayed; exit 4"]);
    expect(result.stdout).toBe("relayed\n");
    expect(result.code).toBe(4);
  });
});
