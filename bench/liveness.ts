import pg from "pg";
import type { Client } from "ssh2";
import { ensureBuild } from "../lib/build/ensure-build";
import { descriptorLimit } from "../lib/process-health";
import { seedNamespace } from "../testing/seeds/namespaces";
import { type RunningServer, startServer } from "../testing/server";
import { loadAverage, seededFleet } from "./fleet";
import { cpuSeconds, inParallel, lowestRss, openTunnel, settle } from "./kit";
import { heartbeatLoop, makeDevices, registerAll } from "./simulator";

/**
 * `npm run bench -- liveness [--devices 5000] [--seconds 90] [--database pglite|postgres]`: what
 * keeping a device online costs the server, each way, at the default interval of 30 s. The same
 * window is measured three times on one server: idle (no device calls; the timers' own cost),
 * with `--devices` idle tunnels held by this process (the tunnel is the heartbeat: SSH keepalives
 * and one liveness statement per 5,000 devices every 30 s), and with as many agents without a
 * tunnel sending REST heartbeats every 30 s. CPU is the server process's, plus on PostgreSQL the
 * database's backends serving it; the load generator is this process, on the same 2 cores.
 */

const intervalSeconds = 30;
const maxDevices = 30_000;

/** CPU seconds of the PostgreSQL backends connected to `url`'s database, sampled every second while running. */
function databaseCpu(url: string | undefined) {
  if (!url) return { total: () => 0, stop: async () => undefined };
  const client = new pg.Client({ connectionString: url });
  const seen = new Map<number, { first: number; last: number }>();
  let isRunning = true;
  const sampling = (async () => {
    await client.connect();
    while (isRunning) {
      const { rows } = await client.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      for (const { pid } of rows) {
        try {
          const used = cpuSeconds(pid);
          const entry = seen.get(pid);
          if (entry) entry.last = used;
          else seen.set(pid, { first: used, last: used });
        } catch {
          // The backend ended between the query and the read.
        }
      }
      await settle(1_000);
    }
    await client.end();
  })();
  return {
    /** CPU seconds spent since sampling started by the backends seen, up to their last sample. */
    total: () => [...seen.values()].reduce((sum, entry) => sum + entry.last - entry.first, 0),
    stop: async () => {
      isRunning = false;
      await sampling;
    },
  };
}

/** The CPU seconds the server (and its database backends) spend during `work`. */
async function measured(server: RunningServer, databaseUrl: string | undefined, work: () => Promise<unknown>) {
  const pid = server.process.pid ?? 0;
  const database = databaseCpu(databaseUrl);
  const before = cpuSeconds(pid);
  const own = cpuSeconds(process.pid);
  await work();
  const result = {
    server: cpuSeconds(pid) - before,
    database: database.total(),
    loadGenerator: cpuSeconds(process.pid) - own,
  };
  await database.stop();
  return result;
}

type Cost = Awaited<ReturnType<typeof measured>>;

const total = (cost: Cost) => cost.server + cost.database;

/** Microseconds of CPU per device per 30 s interval, beyond the idle server's. */
const perDevice = (cost: Cost, idle: Cost, count: number, windowSeconds: number) =>
  ((total(cost) - total(idle)) / count) * (intervalSeconds / windowSeconds) * 1e6;

export async function livenessBenchmark(args: Map<string, string>) {
  const count = Number(args.get("devices") ?? 5_000);
  const windowSeconds = Number(args.get("seconds") ?? 90);
  const kind = args.get("database") ?? "pglite";
  if (!Number.isInteger(count) || count < 1 || count > maxDevices)
    throw new Error(`--devices: 1 to ${maxDevices.toLocaleString("en")}`);
  if (!(windowSeconds >= 30 && windowSeconds <= 600)) throw new Error("--seconds: 30 to 600");
  if (kind !== "pglite" && kind !== "postgres") throw new Error("--database: pglite or postgres");
  const limit = descriptorLimit() ?? 0;
  if (limit < count + 1_000) throw new Error(`the descriptor limit (${limit}) is too low: ulimit -n ${count + 1_000}`);
  ensureBuild();

  const print = (line: string) => process.stdout.write(`${line}\n`);
  const fleet = await seededFleet(kind, count);
  const env = { ...fleet.env, DEVICE_REGISTRATIONS_PER_MINUTE: "1000000", LOG_LEVEL: "warn" };
  const tunnelDevices = fleet.devices;
  let server: RunningServer | undefined;
  const clients: Client[] = [];
  try {
    server = await startServer(env);
    const running = server;
    const window = () => settle(windowSeconds * 1000);
    print(
      `liveness benchmark: ${count.toLocaleString("en")} devices on ${kind}, ${windowSeconds} s per measurement, one call or keepalive round per device every ${intervalSeconds} s; the server and this load generator share 2 cores; load average ${loadAverage()}`,
    );
    await settle(10_000);
    const idleRss = lowestRss(running.process.pid ?? 0);
    const idle = await measured(running, env.DATABASE_URL, window);
    print(`idle server:      ${describe(idle)}`);

    const before = idleRss();
    await inParallel(tunnelDevices, 64, async (device) => {
      clients.push(await openTunnel(running.url, device));
    });
    const tunnelsRss = lowestRss(running.process.pid ?? 0);
    await settle(10_000);
    const tunnels = await measured(running, env.DATABASE_URL, window);
    const memory = (tunnelsRss() - before) / count;
    const tunnelCost = perDevice(tunnels, idle, count, windowSeconds);
    print(
      `${count.toLocaleString("en")} idle tunnels: ${describe(tunnels)}; ${memory.toFixed(1)} KB of server memory each`,
    );
    for (const client of clients.splice(0)) client.end();
    await settle(5_000);

    const { tenantId: restTenant } = await seedNamespace(undefined, { baseUrl: running.url });
    const agents = makeDevices(count, restTenant, "rest");
    await registerAll(running.url, agents, 64);
    await settle(5_000);
    let statuses = new Map<number, number>();
    const rest = await measured(running, env.DATABASE_URL, async () => {
      statuses = await heartbeatLoop(running.url, agents, {
        intervalMs: intervalSeconds * 1000,
        durationMs: windowSeconds * 1000,
      });
    });
    const restCost = perDevice(rest, idle, count, windowSeconds);
    const answered = Object.fromEntries(statuses);
    print(`${count.toLocaleString("en")} REST agents: ${describe(rest)}; answers ${JSON.stringify(answered)}`);

    const perCore = (microseconds: number) =>
      Math.floor((intervalSeconds * 1e6) / Math.max(microseconds, 1)).toLocaleString("en");
    print(
      `per device every ${intervalSeconds} s: tunnel ${tunnelCost.toFixed(0)} µs of CPU, REST heartbeat ${restCost.toFixed(0)} µs (tunnel / REST = ${(tunnelCost / restCost).toFixed(2)})`,
    );
    print(
      `devices one core carries at ${intervalSeconds} s intervals, by CPU alone: ${perCore(tunnelCost)} with tunnels, ${perCore(restCost)} with REST heartbeats; load average ${loadAverage()}`,
    );
  } finally {
    for (const client of clients) client.end();
    await server?.stop();
    await fleet.remove();
  }
}

const describe = (cost: Cost) =>
  `server ${cost.server.toFixed(2)} s CPU` +
  (cost.database > 0 ? `, database ${cost.database.toFixed(2)} s` : "") +
  `, load generator ${cost.loadGenerator.toFixed(2)} s`;
