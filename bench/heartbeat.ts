import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { ensureBuild } from "../lib/build/ensure-build";
import { createTestDatabase } from "../testing/database";
import { seedNamespace } from "../testing/seeds/namespaces";
import { freePort, root, startServer } from "../testing/server";
import { type Load, median } from "./kit";
import { pacedLoad } from "./paced-load";
import { makeDevices, registerAll } from "./simulator";

/** How the load generator drives a server at full speed: for how long, over how many connections. */
export type Drive = { seconds: number; connections: number };

/**
 * wrk (C, from Debian's `wrk` package) drives full-speed runs when it is installed: autocannon
 * runs in this Node process and itself needs about as much CPU per request as a plain Node
 * server, which on a small machine caps what any server can be measured at (~19,000/s against
 * ~34,000/s with wrk on the same plain server here). Paced runs use pacedLoad (bench/paced-load.ts),
 * which holds an even rate; at 3,300/s its share is small.
 */
const wrkPath = ["/usr/bin/wrk", "/usr/local/bin/wrk"].find((candidate) => existsSync(candidate));
const loadGenerator = wrkPath ? "wrk" : "autocannon";

// Cycles through the bodies (one per line of the file named after `--`) from a random start,
// and prints the summary as one JSON line.
const wrkScript = `
local bodies, index = {}, 0
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  index = math.random(#bodies)
end
function request()
  index = index % #bodies + 1
  return wrk.format("POST", nil, { ["content-type"] = "application/json" }, bodies[index])
end
function done(summary, latency)
  local errors = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p50":%d,"p99":%d,"failed":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    errors.connect + errors.read + errors.write + errors.status + errors.timeout))
end`;

async function loadWithWrk(wrk: string, baseUrl: string, bodies: string[], { seconds, connections }: Drive) {
  const directory = mkdtempSync(path.join(tmpdir(), "bench-wrk-"));
  try {
    const [script, bodyFile] = [path.join(directory, "script.lua"), path.join(directory, "bodies")];
    writeFileSync(script, wrkScript);
    writeFileSync(bodyFile, `${bodies.join("\n")}\n`);
    const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", script];
    args.push(`${baseUrl}/api/devices/auth`, "--", bodyFile);
    const output = await new Promise<string>((resolve, reject) => {
      execFile(wrk, args, { maxBuffer: 1 << 20 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
    });
    const summary = JSON.parse(output.trim().split("\n").at(-1) ?? "") as {
      requests: number;
      micros: number;
      p50: number;
      p99: number;
      failed: number;
    };
    return {
      rps: Math.round(summary.requests / (summary.micros / 1e6)),
      p50: Math.round(summary.p50 / 100) / 10,
      p99: Math.round(summary.p99 / 100) / 10,
      failed: summary.failed,
      answered: summary.requests - summary.failed,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Drives POST /api/devices/auth with the devices' bodies in turn, as fast as it goes. */
export async function load(baseUrl: string, bodies: string[], drive: Drive): Promise<Load> {
  if (wrkPath) return loadWithWrk(wrkPath, baseUrl, bodies, drive);
  let next = 0;
  const result = await autocannon({
    url: `${baseUrl}/api/devices/auth`,
    method: "POST",
    connections: drive.connections,
    duration: drive.seconds,
    headers: { "content-type": "application/json" },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.errors + result.non2xx + result.timeouts,
    answered: result["2xx"],
  };
}

/** The first calls of a fresh process are slow: two seconds of load before the measured ones. */
async function warmThenLoad(baseUrl: string, bodies: string[], drive: Drive): Promise<Load> {
  await load(baseUrl, bodies, { ...drive, seconds: 2 });
  return load(baseUrl, bodies, drive);
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

/** Plain Node at full speed and at `pacedRate`. */
type PlainBaseline = { max: Load; paced: Load };

/** The open-loop rate of the latency goal: 100,000 devices calling every 30 s. */
const pacedRate = 3_300;

/**
 * The open loop at `pacedRate`, after two seconds of its own: a server's first second after a
 * full-speed run kept requests waiting 100-560 ms (docs/performance.md).
 */
async function warmThenPaced(url: string, bodies: string[], drive: Drive): Promise<Load> {
  await pacedLoad(url, bodies, { ...drive, seconds: 2, rate: pacedRate });
  return pacedLoad(url, bodies, { ...drive, rate: pacedRate });
}

/**
 * Baseline (a): a plain Node HTTP server that reads the JSON body and answers the same JSON, held
 * for a whole measurement: it stays idle while the service is driven.
 */
async function startPlainNode(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const program = `require("node:http").createServer((request, response) => {
      const chunks = []; request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => { JSON.parse(Buffer.concat(chunks)); response.setHeader("content-type", "application/json");
        response.end(${JSON.stringify(sampleAnswer)}); });
    }).listen(${port}, "127.0.0.1");`;
  const child = spawn(process.execPath, ["-e", program], { stdio: "ignore" });
  const stop = () => child.kill("SIGKILL");
  try {
    await waitUntilUp(`http://127.0.0.1:${port}/api/devices/auth`, child);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}

/**
 * Plain Node at full speed and at `pacedRate`. Its latency at that rate, a tenth of what it can
 * do, is the floor this machine and the paced generator (a Node process, whose own pauses count)
 * set for the service's.
 */
async function plainNodeBaseline(bodies: string[], drive: Drive): Promise<PlainBaseline> {
  const plain = await startPlainNode();
  try {
    const max = await warmThenLoad(plain.url, bodies, drive);
    return { max, paced: await warmThenPaced(`${plain.url}/api/devices/auth`, bodies, drive) };
  } finally {
    plain.stop();
  }
}

/** Baseline (b): a bare Next.js route handler (bench/next-baseline) answering the same JSON. */
async function bareNextBaseline(bodies: string[], drive: Drive): Promise<Load> {
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
    return await warmThenLoad(`http://127.0.0.1:${port}`, bodies, drive);
  } finally {
    child.kill("SIGKILL");
  }
}

/** A full-speed run of plain Node and one of the service right after it. */
type Pair = { plain: Load; service: Load };

/**
 * Full-speed runs alternate between plain Node and the service, `pairRounds` pairs: the machine's
 * speed drifts (plain Node moved from 16,800 to 32,200/s within one run, docs/performance.md), and
 * the median of the pairs' ratios is what one lucky or unlucky baseline run cannot set alone.
 */
const pairRounds = 4;

type ServiceResult = {
  database: string;
  pairs: Pair[];
  /** Plain Node at `pacedRate`, right before the service at that rate. */
  plainPaced: Load;
  registerPerSecond: number;
  paced: Load;
  /** Heartbeat writes per heartbeat recorded (the writer's own counts). */
  writesPerHeartbeat: number;
  /** Every transaction the server ran per answered heartbeat (PostgreSQL's own count). */
  statementsPerHeartbeat?: number;
};

/** Transactions run in a PostgreSQL database so far; every statement outside a transaction is one. */
async function transactionsOf(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select xact_commit + xact_rollback as count from pg_stat_database where datname = current_database()",
    );
    return Number(rows[0]?.count);
  } finally {
    await client.end();
  }
}

async function seedDevices(baseUrl: string, deviceCount: number) {
  const { tenantId } = await seedNamespace(undefined, { baseUrl });
  const devices = makeDevices(deviceCount, tenantId);
  const started = Date.now();
  await registerAll(baseUrl, devices, 64);
  return { devices, seconds: (Date.now() - started) / 1000 };
}

/**
 * The service itself, with `deviceCount` registered devices, on one database. The devices are
 * registered first, and the server restarted, so the counts cover heartbeats of known devices.
 */
async function measureService(kind: "postgres" | "pglite", deviceCount: number, drive: Drive): Promise<ServiceResult> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = kind === "postgres" ? await createTestDatabase(adminUrl) : undefined;
  const env = { DATABASE_URL: database?.url, DEVICE_REGISTRATIONS_PER_MINUTE: "1000000", LOG_LEVEL: "info" };
  const seeding = await startServer(env);
  let server = seeding;
  try {
    const { devices, seconds } = await seedDevices(seeding.url, deviceCount);
    const bodies = devices.map((device) => device.body);
    await seeding.stop();
    server = await startServer({ ...env, DATA_DIR: seeding.dataDir, PORT: String(seeding.port) });
    // Each device's first call after a start verifies its proof's signature (~100 µs): one call
    // each beforehand, so the measured ones are the steady state of agents that signed minutes ago.
    await registerAll(server.url, devices, 64);
    const plain = await startPlainNode();
    try {
      const before = database ? await transactionsOf(database.url) : 0;
      const pairDrive = { ...drive, seconds: Math.max(2, Math.round(drive.seconds / 2)) };
      await load(plain.url, bodies, { ...drive, seconds: 2 });
      const warmUp = await load(server.url, bodies, { ...drive, seconds: 2 });
      const pairs: Pair[] = [];
      for (let round = 0; round < pairRounds; round++) {
        const plainRun = await load(plain.url, bodies, pairDrive);
        pairs.push({ plain: plainRun, service: await load(server.url, bodies, pairDrive) });
      }
      const plainPaced = await warmThenPaced(`${plain.url}/api/devices/auth`, bodies, drive);
      const paced = await warmThenPaced(`${server.url}/api/devices/auth`, bodies, drive);
      await server.stop();
      const answered = [warmUp, paced, ...pairs.map((pair) => pair.service)].reduce(
        (sum, run) => sum + run.answered,
        0,
      );
      const totals = /"message":"heartbeat totals","heartbeats":(\d+),"statements":(\d+)/.exec(server.output());
      return {
        database: kind,
        pairs,
        plainPaced,
        registerPerSecond: Math.round(deviceCount / seconds),
        paced,
        writesPerHeartbeat: totals ? Number(totals[2]) / Number(totals[1]) : Number.NaN,
        statementsPerHeartbeat: database ? ((await transactionsOf(database.url)) - before) / answered : undefined,
      };
    } finally {
      plain.stop();
    }
  } finally {
    await server.stop();
    await database?.drop();
    rmSync(seeding.dataDir, { recursive: true, force: true });
  }
}

/** A run's bound: the busy processes stop by themselves after it, should the benchmark die first. */
const contentionCapMs = 30 * 60_000;
const maxContention = 8;

/**
 * Processes that keep `cores` cores busy until stopped: a machine shared with other work, the
 * "slow day" on which every figure of the run, baselines included, is measured. A fraction is one
 * more process, busy that share of every 10 ms and asleep the rest (1.5: one core busy, another
 * half of the time).
 */
function startContention(cores: number): () => void {
  const busyShares = [...Array(Math.floor(cores)).fill(1), ...(cores % 1 > 0 ? [cores % 1] : [])];
  const children = busyShares.map((share) => {
    const pause = share < 1 ? `Atomics.wait(idle, 0, 0, ${10 * (1 - share)});` : "";
    const program = `const end = Date.now() + ${contentionCapMs}, idle = new Int32Array(new SharedArrayBuffer(4));
      while (Date.now() < end) {
        const until = performance.now() + ${10 * share};
        while (performance.now() < until) {}
        ${pause}
      }`;
    return spawn(process.execPath, ["-e", program], { stdio: "ignore" });
  });
  return () => {
    for (const child of children) child.kill("SIGKILL");
  };
}

/**
 * `npm run bench -- heartbeat [--devices 10000] [--seconds 10] [--connections 64]
 * [--databases postgres,pglite] [--contention 0]`: heartbeats per second the server sustains
 * with that many registered devices, on PostgreSQL and PGlite, as ratios to a plain Node HTTP
 * server (the median of four pairs of short runs, alternating) and a bare Next.js route handler
 * measured in the same run with the same load, and its latency at 3,300/s next to plain Node's
 * at that rate.
 * `--contention N` keeps N cores busy with other processes for the whole run (1.5: one core,
 * and another half of the time).
 */
export async function heartbeatBenchmark(args: Map<string, string>) {
  const deviceCount = Number(args.get("devices") ?? 10_000);
  const drive = { seconds: Number(args.get("seconds") ?? 10), connections: Number(args.get("connections") ?? 64) };
  const databases = (args.get("databases") ?? "postgres,pglite").split(",") as ("postgres" | "pglite")[];
  const contention = Number(args.get("contention") ?? 0);
  if (!Number.isFinite(contention) || contention < 0 || contention > maxContention) {
    throw new Error(
      `--contention takes a number of cores to keep busy, from 0 to ${maxContention} (1.5: one and a half)`,
    );
  }
  ensureBuild();
  const stopContention = startContention(contention);
  try {
    await measureAll(deviceCount, drive, databases, contention);
  } finally {
    stopContention();
  }
}

async function measureAll(deviceCount: number, drive: Drive, databases: ("postgres" | "pglite")[], contention: number) {
  const bodies = makeDevices(1_000, "00000000-0000-4000-8000-000000000000").map((device) => device.body);
  const plainFirst = await plainNodeBaseline(bodies, drive);
  const next = await bareNextBaseline(bodies, drive);
  const results = [];
  for (const kind of databases) {
    results.push(await measureService(kind, deviceCount, drive));
  }

  const lines = [
    `heartbeat benchmark: ${deviceCount} devices, ${drive.seconds} s per measurement, ${drive.connections} connections, full speed driven by ${loadGenerator}` +
      (contention > 0 ? `, ${contention} core(s) kept busy by other processes throughout` : ""),
    `baseline plain Node http:    ${plainFirst.max.rps} req/s (p99 ${plainFirst.max.p99} ms); at 3,300/s offered: p50 ${plainFirst.paced.p50} ms, p99 ${plainFirst.paced.p99} ms`,
    `baseline bare Next.js route: ${next.rps} req/s (p99 ${next.p99} ms), ${(next.rps / plainFirst.max.rps).toFixed(3)}x plain Node`,
  ];
  for (const result of results) {
    const ratios = result.pairs.map((pair) => pair.service.rps / pair.plain.rps);
    const services = result.pairs.map((pair) => pair.service);
    const failed = services.reduce((sum, run) => sum + run.failed, 0);
    lines.push(
      `${result.database}: ${median(ratios).toFixed(2)}x plain Node (median of ${ratios.length} pairs: ${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})` +
        `, ${(median(services.map((run) => run.rps)) / next.rps).toFixed(2)}x bare Next.js`,
      `  full speed: ${services.map((run) => run.rps).join(", ")} heartbeats/s against plain Node's ${result.pairs.map((pair) => pair.plain.rps).join(", ")}` +
        `; p50 ${Math.max(...services.map((run) => run.p50))} ms, p99 ${Math.max(...services.map((run) => run.p99))} ms at most, failed ${failed}`,
      `  at 3,300/s offered (open loop): p50 ${result.paced.p50} ms, p99 ${result.paced.p99} ms, ${result.paced.rps} req/s, failed ${result.paced.failed}` +
        `; plain Node just before: p50 ${result.plainPaced.p50} ms, p99 ${result.plainPaced.p99} ms`,
      `  per heartbeat: ${result.writesPerHeartbeat.toFixed(4)} heartbeat writes` +
        (result.statementsPerHeartbeat === undefined
          ? ""
          : `, ${result.statementsPerHeartbeat.toFixed(4)} statements of any kind`) +
        `; registrations: ${result.registerPerSecond}/s`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
