import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { newDataDir } from "@/testing/data-dir";
import { createTestDatabase } from "@/testing/database";
import { outputOf } from "@/testing/processes";
import { freePort, type RunningServer, root, startServer } from "@/testing/server";
import packageJson from "../../package.json";

/**
 * The server's life: restarts, kill -9, graceful stop, bad configuration, one server per data
 * directory, /info. Every test starts its own servers: PGlite in a new DATA_DIR, or a new
 * database on the server named by TEST_DATABASE_URL.
 */

const adminUrl = process.env.TEST_DATABASE_URL;
const password = "secret-pass";

const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.warn("cleanup failed:", error);
    }
  }
});

/** `directory`, a new empty one unless given, removed after the test. */
function tempDir(directory = mkdtempSync(path.join(tmpdir(), "das-life-"))): string {
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** The environment of a server on fresh data: a DATA_DIR, and a new database on PostgreSQL. */
async function freshData(): Promise<Record<string, string>> {
  const env: Record<string, string> = { DATA_DIR: tempDir(newDataDir()) };
  if (adminUrl) {
    const database = await createTestDatabase(adminUrl);
    cleanups.push(() => database.drop());
    env.DATABASE_URL = database.url;
  }
  return env;
}

/** The pid a running server wrote to DATA_DIR/server.json. */
function serverPid(dataDir: string): number {
  return (JSON.parse(readFileSync(path.join(dataDir, "server.json"), "utf8")) as { pid: number }).pid;
}

/** The node process that runs server.ts: the started process, or a descendant of `npm start`. */
function realPid(server: RunningServer): number {
  const search = (pid: number): number | undefined => {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (command.includes("server.ts") && command.includes("--import")) return pid;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    for (const child of children) {
      const found = search(Number(child));
      if (found) return found;
    }
    return undefined;
  };
  const pid = search(server.process.pid ?? 0);
  if (!pid) throw new Error(`no server.ts process under pid ${server.process.pid}`);
  return pid;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts a server that the test's cleanup stops (SIGTERM, then SIGKILL of both processes). */
async function start(
  env: Record<string, string>,
  options: Parameters<typeof startServer>[1] = {},
): Promise<RunningServer> {
  const server = await startServer(env, options);
  const pid = realPid(server);
  cleanups.push(async () => {
    if (server.process.exitCode === null && server.process.signalCode === null) {
      const exited = server.stop("SIGTERM");
      const timeout = new Promise((resolve) => setTimeout(resolve, 15_000, "timeout"));
      if ((await Promise.race([exited, timeout])) === "timeout") server.process.kill("SIGKILL");
    }
    if (isAlive(pid)) process.kill(pid, "SIGKILL");
  });
  return server;
}

function waitForExit(child: ChildProcess, ms: number): Promise<number | null | "timeout"> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

type Run = { code: number | null | "timeout"; stdout: string; stderr: string };

/** Runs the server with `env` and waits for it to exit (a server that starts is stopped). */
async function runServerProcess(env: Record<string, string>, ms = 45_000): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      PORT: String(await freePort()),
      DATA_DIR: tempDir(),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = outputOf(child);
  const code = await waitForExit(child, ms);
  if (code === "timeout") {
    child.kill("SIGTERM");
    if ((await waitForExit(child, 15_000)) === "timeout") child.kill("SIGKILL");
  }
  return { code, ...output };
}

async function register(baseUrl: string, username = uniqueName("u")) {
  const response = await call("POST", "/api/register", {
    baseUrl,
    body: { name: "Life Cycle", username, email: `${username}@example.com`, password },
  });
  expect(response.status, response.text).toBe(200);
  return { username, token: response.body.token as string };
}

async function login(baseUrl: string, username: string): Promise<string> {
  const response = await call("POST", "/api/login", { baseUrl, body: { username, password } });
  expect(response.status, response.text).toBe(200);
  return response.body.token;
}

/** Every namespace the token's user belongs to, all pages. */
async function namespaceNames(baseUrl: string, token: string): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const response = await call("GET", `/api/namespaces?page=${page}&per_page=100`, { baseUrl, token });
    expect(response.status, response.text).toBe(200);
    names.push(...response.body.map((namespace: { name: string }) => namespace.name));
    if (names.length >= Number(response.headers.get("x-total-count")) || response.body.length === 0) return names;
  }
}

/** True when a new TCP connection to the port is refused. */
function isRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

describe("server life cycle", () => {
  it("keeps users and namespaces across a restart", async () => {
    const env = await freshData();
    const first = await start(env);
    const user = await register(first.url);
    const name = uniqueName("ns");
    const created = await call("POST", "/api/namespaces", { baseUrl: first.url, token: user.token, body: { name } });
    expect(created.status, created.text).toBe(200);
    expect(existsSync(path.join(env.DATA_DIR ?? "", "server.json"))).toBe(true);

    expect(await first.stop("SIGTERM")).toBe(0);
    // A stopped server leaves no runtime file behind.
    expect(existsSync(path.join(env.DATA_DIR ?? "", "server.json"))).toBe(false);

    const second = await start(env);
    const token = await login(second.url, user.username);
    const list = await call("GET", "/api/namespaces", { baseUrl: second.url, token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject([{ name, tenant_id: created.body.tenant_id }]);
    // The token issued before the restart is still good (the signing key is kept in DATA_DIR).
    expect((await call("GET", "/api/auth/user", { baseUrl: second.url, token: user.token })).status).toBe(200);
    expect(await second.stop("SIGTERM")).toBe(0);
  });

  it("loses no acknowledged write when killed with SIGKILL mid-stream", async () => {
    const env = await freshData();
    const server = await start(env);
    const user = await register(server.url);
    const pid = realPid(server);
    expect(serverPid(server.dataDir)).toBe(pid);

    const acknowledged: string[] = [];
    const attempted: string[] = [];
    let isKilled = false;
    const worker = async (index: number) => {
      for (let count = 0; !isKilled; count++) {
        const name = `w${index}-${count}-${uniqueName("n")}`;
        attempted.push(name);
        try {
          const response = await fetch(`${server.url}/api/namespaces`, {
            method: "POST",
            headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
            body: JSON.stringify({ name }),
          });
          await response.text();
          if (response.status === 200) acknowledged.push(name);
          else if (!isKilled) throw new Error(`namespace create answered ${response.status}`);
        } catch (error) {
          if (!isKilled) throw error;
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, index) => worker(index));
    const deadline = Date.now() + 120_000;
    while (acknowledged.length < 60 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    process.kill(pid, "SIGKILL");
    isKilled = true;
    const acknowledgedAtKill = acknowledged.length;
    await Promise.all(workers);
    expect(await waitForExit(server.process, 10_000)).not.toBe("timeout");
    expect(acknowledgedAtKill).toBeGreaterThanOrEqual(60);
    // The kill came while requests were on their way: more were sent than answered.
    expect(attempted.length).toBeGreaterThan(acknowledged.length);

    const restarted = await start(env);
    const token = await login(restarted.url, user.username);
    const names = await namespaceNames(restarted.url, token);
    const missing = acknowledged.filter((name) => !names.includes(name));
    expect(missing, `${missing.length} of ${acknowledged.length} acknowledged namespaces lost`).toEqual([]);
    // Nothing appears that was never asked for.
    expect(names.filter((name) => !attempted.includes(name))).toEqual([]);
    // The list shows namespaces the user is a member of: one cut off mid-way (a namespace row
    // without its owner membership) would be hidden but hold its name. The names are free, and
    // the database takes writes after the crash.
    const unlisted = attempted.filter((name) => !names.includes(name));
    for (const name of unlisted) {
      const again = await call("POST", "/api/namespaces", { baseUrl: restarted.url, token, body: { name } });
      expect(again.status, `${name}: ${again.text}`).toBe(200);
    }
    expect(await restarted.stop("SIGTERM")).toBe(0);
  });

  type Answer = { status: number | string; at: number };

  /**
   * A POST sent with `Expect: 100-continue`: `accepted` resolves once the server has read the
   * request head (it answers 100 Continue) and the body, or its first bytes with `holdBody`, went
   * out; `release` sends the rest (a slow upload: the request stays in flight until then).
   */
  function upload(url: string, body: string, holdBody = false) {
    const request = httpRequest(url, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(body.length), expect: "100-continue" },
    });
    const answer = new Promise<Answer>((resolve) => {
      request.on("response", (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, at: Date.now() }));
        response.on("error", (error) => resolve({ status: error.message, at: Date.now() }));
      });
      request.on("error", (error: NodeJS.ErrnoException) =>
        resolve({ status: error.code ?? error.message, at: Date.now() }),
      );
    });
    const accepted = new Promise<void>((resolve) =>
      request.on("continue", () => {
        if (holdBody) request.write(body.slice(0, 10), () => resolve());
        else request.end(body, () => resolve());
      }),
    );
    request.flushHeaders();
    return { answer, accepted, release: () => holdBody && request.end(body.slice(10)) };
  }

  const registration = (username: string) =>
    JSON.stringify({ name: "Slow Request", username, email: `${username}@example.com`, password });
  // About 1 MB of JSON: parsing it keeps the server's event loop busy for a while (it answers 400).
  const heavyBody = `[${Array.from({ length: 120_000 }, () => '{"a":1}').join(",")}]`;

  /**
   * Starts registrations (slow: argon2), some of them uploading slowly, then sends SIGTERM to
   * `target`: every request completes with 200, new connections are refused meanwhile, the server
   * exits 0 and what the requests wrote is there after a restart.
   */
  async function expectGracefulStop(target: "server" | "npm") {
    const env = await freshData();
    const server = await start(env, { viaNpm: target === "npm" });
    const pid = realPid(server);

    // The heavy bodies first: the signal then follows the registrations at once, however long a
    // busy machine takes to send 6 MB, and comes while they are still being hashed.
    const heavy = Array.from({ length: 6 }, () => upload(`${server.url}/api/register`, heavyBody));
    await Promise.all(heavy.map((request) => request.accepted));
    const usernames = Array.from({ length: 12 }, () => uniqueName("u"));
    const requests = usernames.map((username, index) =>
      upload(`${server.url}/api/register`, registration(username), index < 2),
    );
    await Promise.all(requests.map((request) => request.accepted));
    const signalledAt = Date.now();
    process.kill(target === "server" ? pid : (server.process.pid ?? 0), "SIGTERM");

    // While it drains, new connections are refused (the slow uploads keep it draining until released).
    let refusedAt = 0;
    for (const until = Date.now() + 30_000; Date.now() < until; ) {
      if (await isRefused(server.port)) {
        refusedAt = Date.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The slow uploads finish only now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const request of requests) request.release();

    const results = await Promise.all(requests.map((request) => request.answer));
    const heavyResults = await Promise.all(heavy.map((request) => request.answer));
    const exitCode = await waitForExit(server.process, 60_000);
    expect({
      registrations: results.map((result) => result.status),
      heavy: heavyResults.map((result) => result.status),
      exitCode,
    }).toEqual({
      registrations: usernames.map(() => 200),
      heavy: heavy.map(() => 400),
      exitCode: 0,
    });
    expect(refusedAt, "new connections were still accepted after SIGTERM").toBeGreaterThan(0);
    expect(refusedAt).toBeLessThan(Math.max(...results.map((result) => result.at)));
    expect(Math.min(...results.map((result) => result.at))).toBeGreaterThanOrEqual(signalledAt - 1_000);

    expect(isAlive(pid)).toBe(false);
    expect(await isRefused(server.port)).toBe(true);
    expect(existsSync(path.join(server.dataDir, "server.json"))).toBe(false);

    // What the finished requests wrote is there after a restart.
    const restarted = await start(env);
    for (const username of [usernames[0], usernames.at(-1)]) await login(restarted.url, username ?? "");
  }

  it("on SIGTERM to the server process finishes the requests in flight, refuses new connections, exits 0", async () => {
    await expectGracefulStop("server");
  });

  it("on SIGTERM exits 0 when whatever read its output has gone (a closed pipe)", async () => {
    const server = await start({ ...(await freshData()), LOG_LEVEL: "info" });
    server.process.stdout?.destroy();
    server.process.stderr?.destroy();
    // Every request is logged: each write now fails with EPIPE.
    for (let index = 0; index < 3; index += 1) {
      expect((await fetch(`${server.url}/api/healthcheck`)).status).toBe(200);
    }
    server.process.kill("SIGTERM");
    expect(await waitForExit(server.process, 20_000)).toBe(0);
  });

  // A supervisor's signal reaches npm, which relays it to the server.
  it("on SIGTERM to `npm start` finishes the requests in flight and exits 0", async () => {
    await expectGracefulStop("npm");
  });

  describe("a bad configuration value stops the start", () => {
    it.each([
      ["PORT", "abc"],
      ["SSH_PORT", "70000"],
      ["DATABASE_URL", "mysql://x"],
      ["JWT_SECRET", "short"],
      ["LOG_LEVEL", "chatty"],
      ["HTTP_KEEP_ALIVE_SECONDS", "0"],
    ])("%s=%s", async (name, value) => {
      const run = await runServerProcess({ [name]: value });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("invalid configuration");
      expect(run.stderr).toMatch(new RegExp(`^  ${name}[=:]`, "m"));
      // A short, plain message: no stack trace, nothing started.
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).not.toContain("listening");
    });
  });

  it("refuses a second server on the same PGlite DATA_DIR while the first runs", async () => {
    const dataDir = tempDir();
    const first = await start({ DATA_DIR: dataDir });
    const pid = realPid(first);
    expect(serverPid(dataDir)).toBe(pid);

    const second = await runServerProcess({ DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`DATA_DIR ${dataDir} is in use by process ${pid}`);
    expect(second.stderr).not.toMatch(/\n\s+at /);

    // The first one is untouched, and so is its runtime file.
    expect(serverPid(dataDir)).toBe(pid);
    expect((await call("GET", "/api/healthcheck", { baseUrl: first.url })).status).toBe(200);
    await register(first.url);
    expect(await first.stop("SIGTERM")).toBe(0);
  });

  it("lets only one of two servers started together on one PGlite DATA_DIR run", async () => {
    const dataDir = tempDir();
    // A data directory in use before (initialised, migrated).
    const setup = await start({ DATA_DIR: dataDir });
    expect(await setup.stop("SIGTERM")).toBe(0);

    // Both at the same moment, not one after the other in turn for a start slot.
    const together = { takeStartSlot: false };
    const both = await Promise.allSettled([
      start({ DATA_DIR: dataDir }, together),
      start({ DATA_DIR: dataDir }, together),
    ]);
    const running = both.filter((result) => result.status === "fulfilled");
    const refused = both.filter((result) => result.status === "rejected");
    expect(running.length, "both servers opened the same embedded database").toBe(1);
    expect(String(refused[0]?.reason)).toContain("is in use by process");
  });

  it("keeps an idle keep-alive connection open for HTTP_KEEP_ALIVE_SECONDS, says so in each answer, then closes it", async () => {
    const server = await start({ ...(await freshData()), HTTP_KEEP_ALIVE_SECONDS: "2" });
    const socket = connect(server.port, "127.0.0.1");
    cleanups.push(() => socket.destroy());
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      received += text;
    });
    const closedAt = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now())));
    const answers = () => received.match(/^HTTP\/1\.1 200 /gm)?.length ?? 0;
    const ask = () => socket.write("GET /api/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");

    ask();
    await expect.poll(answers).toBe(1);
    expect(received).toMatch(/^keep-alive: timeout=2\r$/im);
    // Idle for half the time: the same connection still serves the next request.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    ask();
    await expect.poll(answers).toBe(2);
    const answeredAt = Date.now();
    expect(await closedAt).toBeGreaterThanOrEqual(answeredAt + 1_500);
  });

  it("describes itself at GET /info from PUBLIC_URL and SSH_PORT", async () => {
    const sshPort = String(await freePort());
    const [configured, withPort, plain] = await Promise.all([
      freshData().then((env) => start({ ...env, PUBLIC_URL: "https://devices.example.org", SSH_PORT: sshPort })),
      freshData().then((env) => start({ ...env, PUBLIC_URL: "http://ssh.example.net:8443/" })),
      freshData().then((env) => start(env)),
    ]);

    const info = await call("GET", "/info", { baseUrl: configured.url });
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      version: packageJson.version,
      endpoints: { api: "devices.example.org:443", ssh: `devices.example.org:${sshPort}` },
      setup: false,
      billing: false,
    });

    const portInfo = await call("GET", "/info", { baseUrl: withPort.url });
    // Without SSH_PORT, the test servers' gateways listen on ports the system chooses.
    expect(portInfo.body.endpoints).toEqual({
      api: "ssh.example.net:8443",
      ssh: `ssh.example.net:${withPort.sshPort}`,
    });

    const plainInfo = await call("GET", "/info", { baseUrl: plain.url });
    expect(plainInfo.body).toEqual({
      version: packageJson.version,
      endpoints: { api: `localhost:${plain.port}`, ssh: `localhost:${plain.sshPort}` },
      setup: false,
      billing: false,
    });
  });
});
