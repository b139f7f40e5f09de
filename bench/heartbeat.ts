import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import autocannon from "autocannon";
import { createTestDatabase } from "../e2e/api/support/database";
import { freePort, root, startServer } from "../e2e/api/support/server";
import { ensureBuild } from "../lib/build/ensure-build";
import { makeDevices, registerAll } from "./simulator";

type Load = { rps: number; p50: number; p99: number; failed: number };

/** Drives POST /api/devices/auth with the devices' bodies in turn: as fast as it goes, or at `rate`/s. */
async function load(baseUrl: string, bodies: string[], seconds: number, rate?: number): Promise<Load> {
  let next = 0;
  const result = await autocannon({
    url: `${baseUrl}/api/devices/auth`,
    method: "POST",
    connections: 64,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    headers: { "content-type": "application/json" },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.errors + result.non2xx + result.timeouts,
  };
}

async function waitUntilUp(url: string, child: ChildProcess) {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    if (child.exitCode !== null) throw new Error(`${url}: the baseline server exited`);
    const isUp = await fetch(url, { method: "POST", body: "{}" }).then(
      (response) => response.ok,
      () => false,
    );
    if (isUp) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

const sampleAnswer = JSON.stringify({
  uid: "0".repeat(64),
  token: "x".repeat(300),
  name: "device",
  namespace: "bench",
});

/** Baseline (a): a plain Node HTTP server that reads the JSON body and answers the same JSON. */
async function plainNodeBaseline(bodies: string[], seconds: number): Promise<Load> {
  const port = await freePort();
  const program = `require("node:http").createServer((request, response) => {
      const chunks = []; request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => { JSON.parse(Buffer.concat(chunks)); response.setHeader("content-type", "application/json");
        response.end(${JSON.stringify(sampleAnswer)}); });
    }).listen(${port}, "127.0.0.1");`;
  const child = spawn(process.execPath, ["-e", program], { stdio: "ignore" });
  try {
    await waitUntilUp(`http://127.0.0.1:${port}/api/devices/auth`, child);
    return await load(`http://127.0.0.1:${port}`, bodies, seconds);
  } finally {
    child.kill("SIGKILL");
  }
}

/** Baseline (b): a bare Next.js route handler (bench/next-baseline) answering the same JSON. */
async function bareNextBaseline(bodies: string[], seconds: number): Promise<Load> {
  const directory = path.join(root, "bench/next-baseline");
  const nextBin = createRequire(path.join(root, "package.json")).resolve("next/dist/bin/next");
  if (!existsSync(path.join(directory, ".next/BUILD_ID"))) {
    const build = spawnSync(process.execPath, [nextBin, "build", directory], { cwd: root, stdio: "ignore" });
    if (build.status !== 0) throw new Error("building bench/next-baseline failed");
  }
  const port = await freePort();
  const child = spawn(process.execPath, [nextBin, "start", directory, "-p", String(port), "-H", "127.0.0.1"], {
    cwd: root,
    stdio: "ignore",
  });
  try {
    await waitUntilUp(`http://127.0.0.1:${port}/api/devices/auth`, child);
    return await load(`http://127.0.0.1:${port}`, bodies, seconds);
  } finally {
    child.kill("SIGKILL");
  }
}

type ServiceResult = {
  database: string;
  registerPerSecond: number;
  max: Load;
  paced: Load;
  statementsPerHeartbeat: number;
};

/** The service itself, with `devices` registered devices, on one database. */
async function measureService(
  kind: "postgres" | "pglite",
  deviceCount: number,
  seconds: number,
): Promise<ServiceResult> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = kind === "postgres" ? await createTestDatabase(adminUrl) : undefined;
  const server = await startServer({
    DATABASE_URL: database?.url,
    DEVICE_REGISTRATIONS_PER_MINUTE: "1000000",
    LOG_LEVEL: "info",
  });
  try {
    const user = { name: "Bench", username: "bench", email: "bench@example.com", password: "bench-password" };
    const registered = await fetch(`${server.url}/api/register`, { method: "POST", body: JSON.stringify(user) });
    const { token } = (await registered.json()) as { token: string };
    const created = await fetch(`${server.url}/api/namespaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "bench" }),
    });
    const { tenant_id: tenantId } = (await created.json()) as { tenant_id: string };
    const devices = makeDevices(deviceCount, tenantId);
    const started = Date.now();
    await registerAll(server.url, devices, 64);
    const registerPerSecond = Math.round(deviceCount / ((Date.now() - started) / 1000));
    const bodies = devices.map((device) => device.body);
    const max = await load(server.url, bodies, seconds);
    const paced = await load(server.url, bodies, seconds, 3_300);
    await server.stop();
    const totals = /"message":"heartbeat totals","heartbeats":(\d+),"statements":(\d+)/.exec(server.output());
    const statementsPerHeartbeat = totals ? Number(totals[2]) / Number(totals[1]) : Number.NaN;
    return { database: kind, registerPerSecond, max, paced, statementsPerHeartbeat };
  } finally {
    await server.stop();
    await database?.drop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- heartbeat [--devices 10000] [--seconds 10] [--databases postgres,pglite]`: heartbeats per second the
 * server sustains with that many registered devices, on PostgreSQL and PGlite, as ratios to a
 * plain Node HTTP server and a bare Next.js route handler measured in the same run.
 */
export async function heartbeatBenchmark(args: Map<string, string>) {
  const deviceCount = Number(args.get("devices") ?? 10_000);
  const seconds = Number(args.get("seconds") ?? 10);
  const databases = (args.get("databases") ?? "postgres,pglite").split(",") as ("postgres" | "pglite")[];
  ensureBuild();
  const bodies = makeDevices(1_000, "00000000-0000-4000-8000-000000000000").map((device) => device.body);
  const plain = await plainNodeBaseline(bodies, seconds);
  const next = await bareNextBaseline(bodies, seconds);
  const results = [];
  for (const kind of databases) results.push(await measureService(kind, deviceCount, seconds));

  const lines = [
    `heartbeat benchmark: ${deviceCount} devices, ${seconds} s per measurement, 64 connections`,
    `baseline plain Node http:    ${plain.rps} req/s (p99 ${plain.p99} ms)`,
    `baseline bare Next.js route: ${next.rps} req/s (p99 ${next.p99} ms)`,
  ];
  for (const result of results) {
    lines.push(
      `${result.database}: ${result.max.rps} heartbeats/s (p50 ${result.max.p50} ms, p99 ${result.max.p99} ms, failed ${result.max.failed})` +
        ` = ${(result.max.rps / plain.rps).toFixed(2)}x plain Node, ${(result.max.rps / next.rps).toFixed(2)}x bare Next.js`,
      `  at 3,300/s: p50 ${result.paced.p50} ms, p99 ${result.paced.p99} ms, ${result.paced.rps} req/s, failed ${result.paced.failed}`,
      `  statements per heartbeat: ${result.statementsPerHeartbeat.toFixed(4)}; registrations: ${result.registerPerSecond}/s`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
