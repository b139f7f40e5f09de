import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { type RunningServer, startServer } from "@/testing/server";

/**
 * A PostgreSQL restart closes every connection of the server's pool. Terminating the backends
 * from an admin connection does the same to a live server: it must live on and recover.
 */

const adminUrl = process.env.TEST_DATABASE_URL;
const suite = adminUrl ? describe : describe.skip;
const title = adminUrl
  ? "PostgreSQL connections lost"
  : "PostgreSQL connections lost (skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it)";

suite(title, () => {
  let server: RunningServer;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  const password = "secret-pass";
  const username = uniqueName("u");

  beforeAll(async () => {
    database = await createTestDatabase(adminUrl ?? "");
    dataDir = mkdtempSync(path.join(tmpdir(), "das-pgrec-"));
    server = await startServer({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: "2", DATA_DIR: dataDir });
  });

  afterAll(async () => {
    if (server && server.process.exitCode === null) await server.stop("SIGTERM");
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Terminates every backend of the test database but the admin connection's own; returns how many. */
  async function terminateBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const result = await admin.query(
        "select pg_terminate_backend(pid) as done from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [database.name],
      );
      return result.rows.filter((row: { done: boolean }) => row.done).length;
    } finally {
      await admin.end();
    }
  }

  async function backendCount(): Promise<number> {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const result = await admin.query("select count(*)::int as count from pg_stat_activity where datname = $1", [
        database.name,
      ]);
      return result.rows[0].count;
    } finally {
      await admin.end();
    }
  }

  /** Polls `request` until it answers 200; the time it took, or a failure after 15 s. */
  async function recovers(request: () => Promise<number>): Promise<number> {
    const started = Date.now();
    const statuses: (number | string)[] = [];
    while (Date.now() - started < 15_000) {
      const status = await request().catch((error: Error) => `${error.name}: ${error.message}`);
      if (status === 200) return Date.now() - started;
      statuses.push(status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no 200 within 15 s; answers: ${[...new Set(statuses)].join(", ")}`);
  }

  const healthcheck = async () => (await call("GET", "/api/healthcheck", { baseUrl: server.url })).status;
  const login = async () =>
    (await call("POST", "/api/login", { baseUrl: server.url, body: { username, password } })).status;

  it("serves requests on a pool of two", async () => {
    const registered = await call("POST", "/api/register", {
      baseUrl: server.url,
      body: { name: "Pool User", username, email: `${username}@example.com`, password },
    });
    expect(registered.status, registered.text).toBe(200);
    // More requests at once than connections: they queue for the pool.
    const statuses = await Promise.all(Array.from({ length: 8 }, () => healthcheck()));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await login()).toBe(200);
    // The pool holds at most two connections; the live events' listener has one of its own.
    expect(await backendCount()).toBeLessThanOrEqual(3);
  });

  it.each([1, 2, 3])("lives through losing every connection (round %i) and answers again", async () => {
    // Use the pool so that it holds connections to lose.
    await Promise.all([healthcheck(), healthcheck(), login()]);
    const terminated = await terminateBackends();
    expect(terminated).toBeGreaterThan(0);

    const took = await recovers(healthcheck);
    expect(took).toBeLessThan(15_000);
    await recovers(login);
    expect(server.process.exitCode, server.output()).toBeNull();

    // Everything works again, writes included.
    const name = uniqueName("ns");
    const token = (await call("POST", "/api/login", { baseUrl: server.url, body: { username, password } })).body.token;
    const created = await call("POST", "/api/namespaces", { baseUrl: server.url, token, body: { name } });
    expect(created.status, created.text).toBe(200);
  });

  it("lives through losing every connection while requests are running", async () => {
    let isRunning = true;
    const statuses: (number | string)[] = [];
    const load = Array.from({ length: 4 }, async () => {
      while (isRunning) {
        statuses.push(await healthcheck().catch((error: Error) => error.message));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await terminateBackends();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await terminateBackends();
    await new Promise((resolve) => setTimeout(resolve, 300));
    isRunning = false;
    await Promise.all(load);

    expect(server.process.exitCode, server.output()).toBeNull();
    // Requests that met a dead connection may fail, but only with a plain 5xx, never a hang-up.
    expect(statuses.filter((status) => typeof status === "string")).toEqual([]);
    await recovers(healthcheck);
    await recovers(login);
    // The server logs nothing worse than the lost connections and failed requests.
    expect(server.output()).not.toMatch(/uncaught|unhandled rejection/i);
  });

  it("stops cleanly afterwards", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
  });
});
