import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, type SeededNamespace, seedNamespace } from "../api/support/client";
import { type RunningServer, startServer } from "../api/support/server";
import {
  acceptAgentDevice,
  createAccount,
  isRoot,
  type RunningAgent,
  sshPort,
  sshWithPassword,
  startAgent,
  waitFor,
} from "./support";

// Several instances share one PostgreSQL server; the embedded database has one instance only.
const isPostgres = inject("databaseUrl") !== "";

describe.skipIf(!isRoot || !isPostgres)("a second instance reaches a device whose tunnel is on the first", () => {
  let second: RunningServer;
  let namespace: SeededNamespace;
  let agent: RunningAgent;
  let account: ReturnType<typeof createAccount>;
  let deviceUid: string;

  beforeAll(async () => {
    // The test run's server holds the tunnel; the second instance shares its database and secret.
    const secret = readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();
    second = await startServer({ DATABASE_URL: inject("databaseUrl"), INTERNAL_SECRET: secret });
    namespace = await seedNamespace();
    account = createAccount();
    agent = startAgent(inject("baseUrl"), namespace.tenantId);
    deviceUid = await acceptAgentDevice(agent.hostname, { token: namespace.owner.tenantToken });
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

  it("ends a session served by the other instance when it is closed through this one's API", async () => {
    const port = await sshPort(second.url);
    const target = `${account.name}@${namespace.name}.${agent.hostname}@127.0.0.1`;
    const long = sshWithPassword(port, account.password, [target, "sleep 600"]);
    let uid = "";
    await waitFor("the live session", async () => {
      const sessions = (await call("GET", "/api/sessions", { token: namespace.owner.tenantToken })).body;
      uid =
        sessions.find((session: { active: boolean; type: string }) => session.active && session.type === "exec")?.uid ??
        "";
      return uid !== "";
    });
    const closed = await call("POST", `/api/sessions/${uid}/close`, {
      token: namespace.owner.tenantToken,
      body: { device: deviceUid },
    });
    expect(closed.status).toBeLessThan(300);
    // The serving instance checks its live sessions every 30 s.
    expect((await long).code).not.toBe(0);
  });
});
