import type { Client } from "ssh2";
import { Backoff, retryAfterDelay } from "../agent/backoff";
import { connectTimeoutMs } from "../agent/tunnel";
import { ensureBuild } from "../lib/build/ensure-build";
import { descriptorLimit } from "../lib/process-health";
import { type RunningServer, startServer } from "../testing/server";
import { loadAverage, seededFleet } from "./fleet";
import {
  cpuSeconds,
  descriptorKinds,
  descriptorTargets,
  inParallel,
  lowestRss,
  openFds,
  openTunnel,
  percentile,
  rssKiB,
  type SimulatedDevice,
  settle,
  TunnelRefused,
} from "./kit";

/**
 * `npm run bench -- storm [--devices 10000] [--spread 10] [--database pglite|postgres]
 * [--restart yes|no]`: a fleet of idle tunnels held by this one process (WebSocket + SSH +
 * `tcpip-forward` each, as the agent holds its tunnel), all up; the server's memory per tunnel
 * and the API's latency meanwhile. Then (unless `--restart no`) the server restarts on the same
 * data and port and every simulated agent comes back at a random moment within `--spread`
 * seconds of its start, honouring 429 with Retry-After and jitter as the agent does: the time
 * until every tunnel is back and every device online, the 429s and failures, the connections
 * left over 60 s later, the server's peak memory and descriptors, the API's latency meanwhile.
 * The simulated agents send no heartbeats: a device is online from its tunnel alone.
 */

const maxDevices = 30_000;
/** The longest the fleet may take to come up, or to come back after the restart (about 30 a second here). */
const phaseCapMs = 1_200_000;
/** How long after the storm leftover connections are counted. */
const leftoverAfterMs = 60_000;
const goals = { backMs: 30_000, apiP99Ms: 200, perTunnelKiB: 30 };

type Agent = SimulatedDevice & { client?: Client };

/**
 * The simulated agents: each keeps trying until its tunnel is up, waiting Retry-After (with the
 * agent's jitter) after a 429 and the agent's back-off after anything else, counted as a failure.
 * A tunnel that closes while `isRestarting` is false was displaced or dropped: it is counted and
 * opened again, as the agent does.
 */
class Fleet {
  connected = 0;
  refusedBusy = 0;
  failures = new Map<string, number>();
  dropped = 0;
  isRestarting = false;
  isStopping = false;
  /** When each tunnel came up, and when each 429 came with the seconds it asked (performance.now()). */
  readonly upTimes: number[] = [];
  readonly refusals: { at: number; askedSeconds: number }[] = [];
  private lastUp = 0;

  constructor(
    readonly baseUrl: string,
    readonly agents: Agent[],
  ) {}

  get failureCount() {
    return [...this.failures.values()].reduce((sum, count) => sum + count, 0);
  }

  /** When the last tunnel came up (performance.now()). */
  get lastUpAt() {
    return this.lastUp;
  }

  async connect(agent: Agent) {
    const backoff = new Backoff();
    while (!this.isStopping) {
      try {
        const client = await openTunnel(this.baseUrl, agent, connectTimeoutMs);
        agent.client = client;
        this.connected += 1;
        this.lastUp = performance.now();
        this.upTimes.push(this.lastUp);
        client.once("close", () => {
          this.connected -= 1;
          agent.client = undefined;
          if (this.isRestarting || this.isStopping) return;
          this.dropped += 1;
          setTimeout(() => void this.connect(agent), backoff.next());
        });
        return;
      } catch (error) {
        if (error instanceof TunnelRefused && error.status === 429) {
          this.refusedBusy += 1;
          this.refusals.push({ at: performance.now(), askedSeconds: Number(error.retryAfter) });
          await settle(retryAfterDelay(error.retryAfter) ?? backoff.next());
        } else {
          const reason = error instanceof TunnelRefused ? `refused ${error.status}` : (error as Error).message;
          this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
          await settle(backoff.next());
        }
      }
    }
  }

  closeAll() {
    this.isStopping = true;
    for (const agent of this.agents) agent.client?.end();
  }
}

/**
 * Tunnels up and 429s in each 10 s from `startedAt`, and the Retry-After asked: how the admission
 * spread the fleet over the storm.
 */
function stormTimeline(fleet: Fleet, startedAt: number) {
  const perWindow = (times: number[]) => {
    const counts: number[] = [];
    for (const at of times) {
      if (at < startedAt) continue;
      const window = Math.floor((at - startedAt) / 10_000);
      while (counts.length <= window) counts.push(0);
      counts[window] = (counts[window] ?? 0) + 1;
    }
    return counts.join(" ");
  };
  const refusals = fleet.refusals.filter((refusal) => refusal.at >= startedAt);
  const asked = refusals.map((refusal) => refusal.askedSeconds);
  const mean = asked.reduce((sum, value) => sum + value, 0) / Math.max(1, asked.length);
  return `up ${perWindow(fleet.upTimes)}; 429 ${perWindow(refusals.map((refusal) => refusal.at))}; Retry-After mean ${mean.toFixed(1)} s, max ${Math.max(0, ...asked)} s`;
}

type Sample = { ms: number; status: number };

/**
 * The console's two calls one after the other (the device list's first page, the stats) while
 * `isRunning`; `onStats` sees each stats answer.
 */
async function sampleApi(
  baseUrl: string,
  token: string,
  isRunning: () => boolean,
  onStats: (stats: { online_devices: number }) => void = () => undefined,
) {
  const samples: Sample[] = [];
  while (isRunning()) {
    for (const path of ["/api/devices?per_page=25", "/api/stats"]) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }).catch(
        () => undefined,
      );
      const text = (await response?.text().catch(() => "")) ?? "";
      samples.push({ ms: performance.now() - started, status: response?.status ?? 0 });
      if (response?.ok && path === "/api/stats") onStats(JSON.parse(text));
    }
  }
  return samples;
}

const latency = (samples: Sample[]) => {
  const times = samples.map((sample) => sample.ms);
  const errors = samples.filter((sample) => sample.status < 200 || sample.status >= 400).length;
  return `p50 ${percentile(times, 0.5).toFixed(0)} ms, p99 ${percentile(times, 0.99).toFixed(0)} ms over ${samples.length} calls, ${errors} not 2xx`;
};

/** The server's RSS and open descriptors every 250 ms until stopped: the peaks. */
function peaks(pid: () => number) {
  const peak = { rssKiB: 0, fds: 0 };
  const timer = setInterval(() => {
    try {
      peak.rssKiB = Math.max(peak.rssKiB, rssKiB(pid()) || 0);
      peak.fds = Math.max(peak.fds, openFds(pid()));
    } catch {
      // Between the old process's exit and the new one's start.
    }
  }, 250);
  return { peak, stop: () => clearInterval(timer) };
}

async function login(baseUrl: string) {
  const answer = await fetch(`${baseUrl}/api/login`, {
    method: "POST",
    body: JSON.stringify({ username: "bench", password: "bench-password" }),
  });
  if (!answer.ok) throw new Error(`login answered ${answer.status}`);
  return ((await answer.json()) as { token: string }).token;
}

/** Waits until `isDone`, checking every 100 ms, at most `capMs`; answers whether it happened. */
async function until(isDone: () => boolean, capMs: number) {
  for (const cap = performance.now() + capMs; !isDone(); ) {
    if (performance.now() > cap) return false;
    await settle(100);
  }
  return true;
}

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const verdict = (isMet: boolean) => (isMet ? "met" : "NOT met");

export async function stormBenchmark(args: Map<string, string>) {
  const count = Number(args.get("devices") ?? 10_000);
  const spreadMs = Number(args.get("spread") ?? 10) * 1000;
  const kind = args.get("database") ?? "pglite";
  const isRestarting = (args.get("restart") ?? "yes") !== "no";
  if (!Number.isInteger(count) || count < 1 || count > maxDevices)
    throw new Error(`--devices: 1 to ${maxDevices.toLocaleString("en")}`);
  if (!(spreadMs >= 0 && spreadMs <= 120_000)) throw new Error("--spread: 0 to 120 seconds");
  if (kind !== "pglite" && kind !== "postgres") throw new Error("--database: pglite or postgres");
  // This process holds one descriptor per tunnel, and so does the server (which inherits the limit).
  const limit = descriptorLimit() ?? 0;
  if (limit < count + 1_000) throw new Error(`the descriptor limit (${limit}) is too low: ulimit -n ${count + 1_000}`);
  ensureBuild();

  const print = (line: string) => process.stdout.write(`${line}\n`);
  const seeded = await seededFleet(kind, count);
  // The simulated agents send no heartbeats: their tunnels keep their devices online.
  const env = { ...seeded.env, LOG_LEVEL: "warn" };
  const agents: Agent[] = seeded.devices;
  let server: RunningServer | undefined;
  let fleet: Fleet | undefined;
  try {
    server = await startServer(env);
    const token = await login(server.url);
    const pid = () => (server as RunningServer).process.pid ?? 0;
    print(
      `storm benchmark: ${count.toLocaleString("en")} devices on ${kind}, the server and this load generator on the same 2 cores; load average ${loadAverage()}`,
    );

    const idleRss = lowestRss(pid());
    await settle(5_000);
    let isSampling = true;
    const idleApi = sampleApi(server.url, token, () => isSampling);
    await settle(15_000);
    isSampling = false;
    print(`API with no tunnels:       ${latency(await idleApi)}`);
    const before = idleRss();

    fleet = new Fleet(server.url, agents);
    const opening = performance.now();
    const cpuOpening = cpu(pid());
    const opened = inParallel(agents, 64, (agent) => (fleet as Fleet).connect(agent));
    const isUp = await until(() => (fleet as Fleet).connected === count, phaseCapMs);
    await opened;
    if (!isUp) throw new Error(`only ${fleet.connected} of ${count} tunnels came up`);
    print(
      `tunnels up: ${count.toLocaleString("en")} in ${seconds(performance.now() - opening)} (64 at a time), ${fleet.refusedBusy} answered 429, ${fleet.failureCount} failures; CPU ${cpuOpening()}`,
    );
    const steadyRss = lowestRss(pid());
    await settle(10_000);
    isSampling = true;
    const steadyApi = sampleApi(server.url, token, () => isSampling);
    await settle(30_000);
    isSampling = false;
    const steady = await steadyApi;
    const after = steadyRss();
    const perTunnel = (after - before) / count;
    print(
      `server RSS, the lowest of the 20 s before and of the 40 s after: ${mib(before)} -> ${mib(after)} = ${perTunnel.toFixed(1)} KB per idle tunnel (goal <= ${goals.perTunnelKiB} KB: ${verdict(perTunnel <= goals.perTunnelKiB)}); ${openFds(pid())} descriptors; this process ${mib(rssKiB(process.pid))}`,
    );
    const steadyP99 = percentile(
      steady.map((sample) => sample.ms),
      0.99,
    );
    print(
      `API with all tunnels up:   ${latency(steady)} (goal p99 < ${goals.apiP99Ms} ms: ${verdict(steadyP99 < goals.apiP99Ms)}); load average ${loadAverage()}`,
    );
    if (!isRestarting) return;

    // The restart: SIGTERM, then a new process on the same data and port.
    const watch = peaks(pid);
    fleet.isRestarting = true;
    const stopping = performance.now();
    await server.stop();
    const isDown = await until(() => (fleet as Fleet).connected === 0, 60_000);
    print(
      `server stopped in ${seconds(performance.now() - stopping)}${isDown ? "" : `, ${fleet.connected} tunnels still open`}`,
    );
    const starting = performance.now();
    server = await startServer({ ...env, PORT: String(server.port) });
    const started = performance.now();
    const cpuStorm = cpu(pid());
    print(`server started in ${seconds(started - starting)}; the agents come back within ${seconds(spreadMs)}`);
    fleet.isRestarting = false;
    const busyBefore = fleet.refusedBusy;
    const failuresBefore = fleet.failureCount;
    const comingBack = Promise.all(
      agents.map(async (agent) => {
        await settle(Math.random() * spreadMs);
        await (fleet as Fleet).connect(agent);
      }),
    );
    let onlineAt = 0;
    const stormToken = await login(server.url);
    const stormApi = sampleApi(
      server.url,
      stormToken,
      () => onlineAt === 0 && performance.now() - started < phaseCapMs,
      (stats) => {
        if (stats.online_devices >= count && onlineAt === 0) onlineAt = performance.now();
      },
    );
    const isBack = await until(() => (fleet as Fleet).connected === count, phaseCapMs);
    const backMs = fleet.lastUpAt - started;
    const storm = await stormApi;
    const stormCpu = cpuStorm();
    const onlineMs = onlineAt - started;
    const stormP99 = percentile(
      storm.map((sample) => sample.ms),
      0.99,
    );
    print(
      `tunnels back: ${isBack ? `all ${count.toLocaleString("en")}` : `${fleet.connected} of ${count}`} ${seconds(backMs)} after the start; every device online in the API ${onlineAt ? seconds(onlineMs) : "never"} after (goal <= ${seconds(goals.backMs)}: ${verdict(isBack && onlineAt > 0 && Math.max(backMs, onlineMs) <= goals.backMs)})`,
    );
    print(
      `answered 429: ${fleet.refusedBusy - busyBefore}; failures: ${fleet.failureCount - failuresBefore} ${JSON.stringify(Object.fromEntries(fleet.failures))}; tunnels dropped once up: ${fleet.dropped}; CPU ${stormCpu}`,
    );
    print(`per 10 s after the start: ${stormTimeline(fleet, started)}`);
    print(
      `API during the storm:      ${latency(storm)} (goal p99 < ${goals.apiP99Ms} ms: ${verdict(stormP99 < goals.apiP99Ms)})`,
    );
    await comingBack;
    await settle(Math.max(0, started + Math.max(backMs, 0) + leftoverAfterMs - performance.now()));
    watch.stop();
    const kinds = descriptorKinds(pid(), descriptorTargets(pid()), new Map([[server.port, "api"]]));
    const onApi = [...kinds].filter(([name]) => name.includes("in to :api"));
    const established = kinds.get("tcp ESTABLISHED in to :api") ?? 0;
    print(
      `60 s after: ${fleet.connected} tunnels up here, ${established} connections established on the server's API port (${established - fleet.connected} besides the tunnels); ${JSON.stringify(Object.fromEntries(onApi))}; tunnels dropped: ${fleet.dropped}`,
    );
    print(
      `server peaks from the restart on: RSS ${mib(watch.peak.rssKiB)}, ${watch.peak.fds} descriptors; load average ${loadAverage()}`,
    );
  } finally {
    fleet?.closeAll();
    await server?.stop();
    await seeded.remove();
  }
}

/** CPU seconds the server and this process spend from now until the answer is called. */
function cpu(serverPid: number) {
  const server = cpuSeconds(serverPid);
  const own = cpuSeconds(process.pid);
  return () =>
    `server ${(cpuSeconds(serverPid) - server).toFixed(1)} s, load generator ${(cpuSeconds(process.pid) - own).toFixed(1)} s`;
}
