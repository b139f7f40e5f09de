import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { type CliResult, cli, type Data, expectError, expectOk, runCli } from "@/testing/cli";
import { call } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { type RunningServer, startServer } from "@/testing/server";

/**
 * The admin CLI as a real process (`tsx lib/cli/main.ts`), on a data directory no server holds
 * and on one a server runs on (on PGlite the command then goes through POST /internal/admin).
 * With TEST_DATABASE_URL every test works on a new PostgreSQL database instead. Tests that only
 * need a server running share one, on data of this file's own.
 */

const adminUrl = process.env.TEST_DATABASE_URL;
const uuidPattern = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** What one test starts and creates, removed when it finishes (the tests here run concurrently). */
function fixture(context: TestContext) {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  context.onTestFinished(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.warn("cleanup failed:", error);
      }
    }
  });
  return {
    /** A new DATA_DIR and, on PostgreSQL unless `embedded`, a new database. */
    async freshData(options: { embedded?: boolean } = {}): Promise<Data> {
      const directory = mkdtempSync(path.join(tmpdir(), "das-cli-"));
      cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
      if (!adminUrl || options.embedded) return { DATA_DIR: directory };
      const database = await createTestDatabase(adminUrl);
      cleanups.push(() => database.drop());
      return { DATA_DIR: directory, DATABASE_URL: database.url };
    },
    async start(data: Data): Promise<RunningServer> {
      const server = await startServer({ ...data });
      cleanups.push(async () => {
        if (server.process.exitCode === null) await server.stop("SIGTERM");
      });
      return server;
    },
  };
}

async function login(baseUrl: string, username: string, password: string) {
  return call("POST", "/api/login", { baseUrl, body: { username, password } });
}

async function loginToken(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await login(baseUrl, username, password);
  expect(response.status, response.text).toBe(200);
  return response.body.token;
}

async function register(baseUrl: string, username: string, password = "secret-pass") {
  const response = await call("POST", "/api/register", {
    baseUrl,
    body: { name: "Cli Test", username, email: `${username}@example.com`, password },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.token as string;
}

type NamespaceView = { name: string; tenant_id: string; members: { username: string; role: string }[] };

async function namespacesOf(baseUrl: string, token: string): Promise<NamespaceView[]> {
  const response = await call("GET", "/api/namespaces?per_page=100", { baseUrl, token });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Runs `tasks` at most `limit` at a time. */
async function inBatches<T>(tasks: (() => Promise<T>)[], limit = 4): Promise<T[]> {
  const results: T[] = [];
  for (let index = 0; index < tasks.length; index += limit) {
    results.push(...(await Promise.all(tasks.slice(index, index + limit).map((task) => task()))));
  }
  return results;
}

describe.concurrent("admin CLI", () => {
  // For the tests that need a server running on data no other test file uses, not one of their own.
  let shared: OwnServer;
  beforeAll(async () => {
    shared = await startOwnServer();
  });
  afterAll(async () => {
    await shared?.stop();
  });

  it("works on the data directly when no server runs; a server started later sees the result", async (context) => {
    const { freshData, start } = fixture(context);
    const data = await freshData();
    const tenant = "3f0e9a52-4a6b-4c1e-9d2f-7b8a6c5d4e3f";

    const usage = await cli(data);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe("");
    expect(usage.stderr).toContain("Usage: npm run cli -- COMMAND");
    for (const command of [
      "user create USERNAME PASSWORD EMAIL",
      "user delete USERNAME",
      "user password USERNAME PASSWORD",
      "namespace create NAME OWNER [TENANT_ID]",
      "namespace delete NAME",
      "namespace member add USERNAME NAMESPACE ROLE",
      "namespace member remove USERNAME NAMESPACE",
    ]) {
      expect(usage.stderr).toContain(command);
    }

    await expectOk(
      cli(data, "user", "create", "Alice", "alice-pw1", "Alice@Example.com"),
      new RegExp(`^user 'alice' created \\(id ${uuidPattern}\\)\\n$`),
    );
    await expectOk(cli(data, "user", "create", "bob", "bob-pw-1", "bob@example.com"), /^user 'bob' created/);
    await expectOk(
      cli(data, "namespace", "create", "lab", "alice"),
      new RegExp(`^namespace 'lab' created \\(tenant id ${uuidPattern}\\)\\n$`),
    );
    await expectOk(
      cli(data, "namespace", "create", "fixed", "ALICE", tenant),
      new RegExp(`tenant id ${tenant}\\)\\n$`),
    );
    await expectOk(
      cli(data, "namespace", "member", "add", "bob", "fixed", "observer"),
      /^'bob' added to 'fixed' as observer\n$/,
    );
    await expectOk(
      cli(data, "namespace", "member", "add", "bob", "lab", "operator"),
      /^'bob' added to 'lab' as operator\n$/,
    );
    await expectOk(cli(data, "namespace", "member", "remove", "bob", "fixed"), /^'bob' removed from 'fixed'\n$/);
    await expectOk(cli(data, "user", "password", "bob", "bob-pw-2"), /^password of 'bob' changed\n$/);

    const server = await start(data);
    const aliceToken = await loginToken(server.url, "alice", "alice-pw1");
    const alices = await namespacesOf(server.url, aliceToken);
    expect(alices.map((namespace) => namespace.name).sort()).toEqual(["fixed", "lab"]);
    expect(alices.find((namespace) => namespace.name === "fixed")?.tenant_id).toBe(tenant);
    const lab = alices.find((namespace) => namespace.name === "lab");
    expect(lab?.members.map(({ username, role }) => ({ username, role }))).toEqual([
      { username: "alice", role: "owner" },
      { username: "bob", role: "operator" },
    ]);
    // The password set by the CLI is the one that works.
    expect((await login(server.url, "bob", "bob-pw-1")).status).toBe(401);
    const bobToken = await loginToken(server.url, "bob", "bob-pw-2");
    expect((await namespacesOf(server.url, bobToken)).map((namespace) => namespace.name)).toEqual(["lab"]);
    expect(await server.stop("SIGTERM")).toBe(0);

    // And back to the CLI on the data the server left: delete what it made.
    await expectOk(cli(data, "namespace", "delete", "fixed"), /^namespace 'fixed' deleted\n$/);
    await expectOk(cli(data, "user", "delete", "alice"), /^user 'alice' deleted\n$/);
    // alice owned 'lab': it went with her.
    await expectError(
      cli(data, "namespace", "member", "remove", "bob", "lab"),
      1,
      /^error: namespace 'lab' not found\n$/,
    );
  });

  it("two commands at once on an embedded data directory do not both open it", async (context) => {
    const { freshData } = fixture(context);
    const data = await freshData({ embedded: true });
    // At the same moment, not one after the other in turn for a start slot.
    const together = { takeStartSlot: false };
    const results = await Promise.all([
      runCli(data, ["user", "create", "first", "secret-1", "first@example.com"], together),
      runCli(data, ["user", "create", "second", "secret-2", "second@example.com"], together),
    ]);
    // Each either did its work or was told plainly that the data directory is busy.
    for (const result of results) {
      if (result.code === 0) continue;
      expect(result.stderr).not.toContain("[object Object]");
      expect(result.stderr).toMatch(/DATA_DIR|in use|another|busy|lock/i);
    }
    expect(results.some((result) => result.code === 0)).toBe(true);
  });

  it("goes through the running server, whose API shows the result at once", async (context) => {
    const { freshData, start } = fixture(context);
    const data = await freshData();
    const server = await start(data);

    await expectOk(cli(data, "user", "create", "dave", "dave-pw1", "dave@example.com"), /^user 'dave' created/);
    const daveToken = await loginToken(server.url, "dave", "dave-pw1");

    await expectOk(cli(data, "namespace", "create", "ops", "dave"), /^namespace 'ops' created/);
    const [ops] = await namespacesOf(server.url, daveToken);
    expect(ops?.name).toBe("ops");

    await register(server.url, "erin");
    await expectOk(
      cli(data, "namespace", "member", "add", "erin", "ops", "administrator"),
      /^'erin' added to 'ops' as administrator\n$/,
    );
    const erinToken = await loginToken(server.url, "erin", "secret-pass");
    const [seenByErin] = await namespacesOf(server.url, erinToken);
    expect(seenByErin?.members.find((member) => member.username === "erin")?.role).toBe("administrator");

    await expectOk(cli(data, "namespace", "member", "remove", "erin", "ops"), /^'erin' removed from 'ops'\n$/);
    expect(await namespacesOf(server.url, erinToken)).toEqual([]);

    await expectOk(cli(data, "user", "password", "dave", "dave-pw2"), /^password of 'dave' changed\n$/);
    expect((await login(server.url, "dave", "dave-pw1")).status).toBe(401);
    await loginToken(server.url, "dave", "dave-pw2");

    await expectOk(cli(data, "namespace", "delete", "ops"), /^namespace 'ops' deleted\n$/);
    expect(await namespacesOf(server.url, daveToken)).toEqual([]);

    await expectOk(cli(data, "user", "delete", "erin"), /^user 'erin' deleted\n$/);
    expect((await login(server.url, "erin", "secret-pass")).status).toBe(401);

    // The server is still the only one on the data and stops cleanly.
    expect((await call("GET", "/api/healthcheck", { baseUrl: server.url })).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
  });

  it("refuses bad commands with a clear message: 1 when refused, 2 for bad usage", async () => {
    const server = shared;
    const { data } = server;
    await register(server.url, "known");
    await register(server.url, "other");
    const token = await loginToken(server.url, "known", "secret-pass");
    const created = await call("POST", "/api/namespaces", { baseUrl: server.url, token, body: { name: "existing" } });
    expect(created.status, created.text).toBe(200);

    const cases: [string[], number, RegExp][] = [
      [[], 2, /^Usage: npm run cli -- COMMAND/],
      [["help"], 0, /^$/],
      [["frobnicate"], 2, /^unknown command: frobnicate\n\nUsage:/],
      [["user", "create", "x"], 2, /^wrong number of arguments for 'user create'\n\nUsage:/],
      [["namespace", "member", "add", "known", "existing"], 2, /^wrong number of arguments for 'namespace member add'/],
      [["user", "create", "ok-name", "abc", "ok@example.com"], 2, /^error: invalid password: at least 5 characters\n$/],
      [["user", "create", "ok-name", "secret1", "not-an-email"], 2, /^error: invalid e-mail/],
      [["user", "create", "x", "secret1", "ok@example.com"], 2, /^error: invalid username/],
      [["user", "create", "known", "secret1", "new@example.com"], 1, /^error: already in use: username\n$/],
      [["user", "create", "newcomer", "secret1", "other@example.com"], 1, /^error: already in use: email\n$/],
      [["user", "password", "nobody", "secret1"], 1, /^error: user 'nobody' not found\n$/],
      [["namespace", "create", "fresh", "nobody"], 1, /^error: user 'nobody' not found\n$/],
      [["namespace", "create", "Bad_Name", "known"], 2, /^error: invalid namespace name/],
      [["namespace", "create", "fresh", "known", "not-a-uuid"], 2, /^error: invalid tenant id/],
      [["namespace", "create", "existing", "known"], 1, /^error: a namespace with this name already exists\n$/],
      [["namespace", "delete", "nothere"], 1, /^error: namespace 'nothere' not found\n$/],
      [["namespace", "member", "add", "nobody", "existing", "observer"], 1, /^error: user 'nobody' not found\n$/],
      [["namespace", "member", "add", "other", "existing", "superuser"], 2, /^error: invalid role/],
      [["namespace", "member", "add", "other", "existing", "owner"], 1, /^error: the owner role cannot be granted\n$/],
      [["namespace", "member", "remove", "known", "existing"], 1, /^error: the owner cannot be removed\n$/],
    ];
    const results = await inBatches(
      cases.map(
        ([args]) =>
          () =>
            cli(data, ...args),
      ),
    );
    for (const [index, [args, code, message]] of cases.entries()) {
      const result = results[index] as CliResult;
      const stdout = code === 0 ? expect.stringContaining("Usage: npm run cli") : "";
      expect({ args, code: result.code, stdout: result.stdout }, result.stderr).toEqual({ args, code, stdout });
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }

    // The refused commands changed nothing.
    const namespaces = await namespacesOf(server.url, token);
    expect(namespaces.map((namespace) => namespace.name)).toEqual(["existing"]);
    expect(namespaces[0]?.members.map((member) => member.username)).toEqual(["known"]);
    expect((await login(server.url, "newcomer", "secret1")).status).toBe(401);
    expect((await login(server.url, "known", "secret-pass")).status).toBe(200);
  });

  it("stops with a clear message on a bad configuration", async (context) => {
    const { freshData } = fixture(context);
    const data = await freshData();
    await expectError(cli({ ...data, DATABASE_URL: "mysql://x" }, "user", "delete", "nobody"), 1, /^\s*DATABASE_URL:/m);
  });

  it("POST /internal/admin needs the internal secret", async () => {
    const server = shared;
    const { data } = server;
    await register(server.url, "target");
    const body = { args: ["user", "delete", "target"] };
    const refused = async (headers: Record<string, string>) => {
      const response = await call("POST", "/internal/admin", { baseUrl: server.url, body, headers });
      expect(response.status, JSON.stringify(headers)).toBe(401);
    };
    await refused({});
    await refused({ "x-internal-secret": "" });
    await refused({ "x-internal-secret": "x".repeat(64) });
    // The secret is made on first use and kept in DATA_DIR, owner-only.
    const secretFile = path.join(data.DATA_DIR, "internal.secret");
    const secret = readFileSync(secretFile, "utf8").trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(secretFile).mode & 0o077).toBe(0);
    await refused({ "x-internal-secret": "x".repeat(secret.length) });
    await refused({ "x-internal-secret": secret.slice(0, -1) });
    await refused({ "x-internal-secret": `${secret}x` });
    // A user's token is not the internal secret either.
    const token = await loginToken(server.url, "target", "secret-pass");
    expect((await call("POST", "/internal/admin", { baseUrl: server.url, body, token })).status).toBe(401);
    // None of those ran the command.
    expect((await login(server.url, "target", "secret-pass")).status).toBe(200);

    const withSecret = { "x-internal-secret": secret };
    const usage = await call("POST", "/internal/admin", {
      baseUrl: server.url,
      body: { args: [] },
      headers: withSecret,
    });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ code: 2, output: expect.stringContaining("Usage: npm run cli") });
    const done = await call("POST", "/internal/admin", { baseUrl: server.url, body, headers: withSecret });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ code: 0, output: "user 'target' deleted" });
    expect((await login(server.url, "target", "secret-pass")).status).toBe(401);
  });

  it("README walk-through: CLI user, then log in, namespace, member, API key, list with the key over HTTP", async () => {
    const server = shared;
    const { data } = server;
    const baseUrl = server.url;
    await expectOk(cli(data, "user", "create", "admin", "admin-pass", "admin@example.com"), /^user 'admin' created/);
    await register(baseUrl, "colleague");

    // curl -X POST $URL/api/login -d '{"username":"admin","password":"admin-pass"}'
    const session = await login(baseUrl, "admin", "admin-pass");
    expect(session.status, session.text).toBe(200);
    expect(session.body).toMatchObject({ user: "admin", email: "admin@example.com", tenant: "" });

    // curl -X POST $URL/api/namespaces -H "Authorization: Bearer $TOKEN" -d '{"name":"home-lab"}'
    const namespace = await call("POST", "/api/namespaces", {
      baseUrl,
      token: session.body.token,
      body: { name: "home-lab" },
    });
    expect(namespace.status, namespace.text).toBe(200);
    const tenant = namespace.body.tenant_id as string;
    expect(tenant).toMatch(new RegExp(`^${uuidPattern}$`));

    // curl -X POST $URL/api/namespaces/$TENANT/members -d '{"identifier":"colleague","role":"operator"}'
    const member = await call("POST", `/api/namespaces/${tenant}/members`, {
      baseUrl,
      token: session.body.token,
      body: { identifier: "colleague", role: "operator" },
    });
    expect(member.status, member.text).toBe(200);
    expect(member.body.members.map((item: { username: string; role: string }) => [item.username, item.role])).toEqual([
      ["admin", "owner"],
      ["colleague", "operator"],
    ]);

    // The login token names no namespace yet, and an API key belongs to the token's namespace:
    // the walk-through switches first (curl $URL/api/token/$TENANT -H "Authorization: Bearer $TOKEN").
    const withoutNamespace = await call("POST", "/api/namespaces/api-key", {
      baseUrl,
      token: session.body.token,
      body: { name: "readme-key", expires_at: -1 },
    });
    expect(withoutNamespace.status).toBe(403);
    expect(withoutNamespace.body.message).toContain("GET /api/token/{tenant}");
    const switched = await call("GET", `/api/token/${tenant}`, { baseUrl, token: session.body.token });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body).toMatchObject({ tenant, role: "owner" });

    // curl -X POST $URL/api/namespaces/api-key -d '{"name":"readme-key","expires_at":-1,"role":"observer"}'
    const key = await call("POST", "/api/namespaces/api-key", {
      baseUrl,
      token: switched.body.token,
      body: { name: "readme-key", expires_at: -1, role: "observer" },
    });
    expect(key.status, key.text).toBe(200);
    expect(key.body).toMatchObject({ name: "readme-key", tenant_id: tenant, role: "observer" });
    expect(typeof key.body.id).toBe("string");

    // curl $URL/api/namespaces -H "X-API-KEY: $KEY"
    const list = await call("GET", "/api/namespaces", { baseUrl, apiKey: key.body.id });
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get("x-total-count")).toBe("1");
    expect(list.body).toMatchObject([{ name: "home-lab", tenant_id: tenant }]);
  });
});
