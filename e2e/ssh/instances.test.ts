import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunningAgent } from "@/testing/agents";
import { call } from "@/testing/client";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";
import { isRoot, openTerminal, sshPort, sshWithPassword, startDevice, type TestDevice } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

// Several instances share one PostgreSQL server; the embedded database has one instance only.
const isPostgres = inject("databaseUrl") !== "";

describe.skipIf(!isRoot || !isPostgres)("a second instance reaches a device whose tunnel is on the first", () => {
  let second: RunningServer;
  let testDevice: TestDevice;
  let namespace: SeededNamespace;
  let agent: RunningAgent;
  let account: TestDevice["account"];
  let deviceUid: string;

  beforeAll(async () => {
    // The test run's server holds the tunnel; the second instance shares its database and secret.
    const secret = readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();
    second = await startServer({ DATABASE_URL: inject("databaseUrl"), INTERNAL_SECRET: secret });
    testDevice = await startDevice();
    ({ namespace, account, agent, deviceUid } = testDevice);
  });

  afterAll(async () => {
    await testDevice?.stop();
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
    type Row = { uid: string; active: boolean; authenticated: boolean };
    const sessions = async () =>
      (await call("GET", "/api/sessions", { token: namespace.owner.tenantToken })).body as Row[];
    const known = new Set((await sessions()).map((session) => session.uid));
    const long = sshWithPassword(port, account.password, [target, "sleep 600"]);
    let uid = "";
    await waitFor("the live session", async () => {
      const live = (await sessions()).find((row) => !known.has(row.uid) && row.active && row.authenticated);
      uid = live?.uid ?? "";
      return uid !== "";
    });
    const closed = await call("POST", `/api/sessions/${uid}/close`, {
      token: namespace.owner.tenantToken,
      body: { device: deviceUid },
    });
    expect(closed.status).toBeLessThan(300);
    // The close's event reaches the serving instance within the notification's delay; its sweep
    // of live sessions, every 30 s, would come too late for this bound.
    const ended = await Promise.race([long, new Promise<undefined>((resolve) => setTimeout(resolve, 10_000))]);
    expect(ended, "the connection still runs 10 s after the close").toBeDefined();
    expect(ended?.code).not.toBe(0);
  });
  it("opens a browser terminal on the other instance with a token this one issued", async () => {
    const issued = await call("POST", "/ws/ssh", {
      token: namespace.owner.tenantToken,
      body: { device: deviceUid, username: account.name, password: account.password },
    });
    expect(issued.status).toBe(200);
    const origin = `http://localhost:${second.port}`;
    const terminal = await openTerminal(issued.body.token, origin, { cols: 80, rows: 24 }, second.url);
    terminal.socket.send(Buffer.from("echo across-$((40 + 2)); exit\n"));
    await terminal.closed;
    expect(terminal.output()).toContain("across-42");
    await expect(openTerminal(issued.body.token, origin, undefined, second.url)).rejects.toThrow("HTTP 401");
  });
});
