import { readFileSync } from "node:fs";
import type { Client, ClientChannel, ConnectConfig } from "ssh2";
import { ensureBuild } from "../lib/build/ensure-build";
import { createTestDatabase } from "../testing/database";
import { type SeededUser, seedUser } from "../testing/seeds/users";
import { type RunningServer, startServer } from "../testing/server";
import { createAccount } from "../testing/ssh";
import {
  agentFleet,
  connect,
  descriptorKinds,
  descriptorTargets,
  median,
  percentile,
  rssKiB,
  settle,
  withTimeout,
} from "./kit";

/** Operations of one kind: how many succeeded, failed, and how long the successful ones took. */
class Tally {
  ok = 0;
  failed = 0;
  readonly ms: number[] = [];
  readonly failures = new Map<string, number>();

  succeed(ms: number) {
    this.ok += 1;
    this.ms.push(ms);
  }

  fail(reason: string) {
    this.failed += 1;
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
  }

  summary(name: string) {
    const reasons = [...this.failures].map(([reason, count]) => `${count}x ${reason}`).join("; ");
    return `${name}: ${this.ok} ok, ${this.failed} failed, p50 ${percentile(this.ms, 0.5).toFixed(1)} ms, p99 ${percentile(this.ms, 0.99).toFixed(1)} ms${reasons ? ` (${reasons})` : ""}`;
  }
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 120);

function exec(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    client.exec(command, (error, channel) => (error ? reject(error) : resolve(channel))),
  );
}

type Traffic = { logins: Tally; echoes: Tally; drops: Tally };

/**
 * One person's SSH session through the gateway, again and again until `until`: logs in, runs a
 * shell that echoes a line every `everyMs`, and after a lifetime around `lifetimeMs` logs out.
 */
async function sessionLoop(
  config: ConnectConfig,
  until: number,
  everyMs: number,
  lifetimeMs: number,
  traffic: Traffic,
) {
  while (Date.now() < until) {
    const started = performance.now();
    let client: Client;
    try {
      client = await connect(config);
      traffic.logins.succeed(performance.now() - started);
    } catch (error) {
      traffic.logins.fail(reasonOf(error));
      await settle(everyMs);
      continue;
    }
    let isClosing = false;
    client.on("error", () => {});
    client.once("close", () => {
      if (!isClosing) traffic.drops.fail("connection closed during the session");
    });
    try {
      const shell = await withTimeout(exec(client, "sh"), 30_000, "starting sh");
      let output = "";
      let onOutput = () => {};
      shell.on("data", (chunk: Buffer) => {
        output += chunk;
        onOutput();
      });
      shell.stderr.resume();
      /** Resolves once `line` came back, or fails after 10 s. */
      const echoed = (line: string) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no echo within 10 s")), 10_000);
          onOutput = () => {
            if (!output.includes(line)) return;
            clearTimeout(timer);
            resolve();
          };
          onOutput();
        });
      const ends = Math.min(until, Date.now() + lifetimeMs * (0.5 + Math.random()));
      for (let tick = 0; Date.now() < ends; tick++) {
        await settle(everyMs * (0.5 + Math.random()));
        const line = `tick-${tick}\n`;
        const sent = performance.now();
        shell.write(`echo ${line}`);
        await echoed(line);
        traffic.echoes.succeed(performance.now() - sent);
        output = output.slice(output.indexOf(line) + line.length);
      }
      isClosing = true;
      shell.end("exit\n");
    } catch (error) {
      traffic.echoes.fail(reasonOf(error));
    } finally {
      isClosing = true;
      client.end();
    }
  }
}

/** API calls at `perSecond`, in turn: the device list, the session list, a login (of one of `users`). */
async function apiLoop(
  baseUrl: string,
  token: string,
  users: SeededUser[],
  perSecond: number,
  until: number,
  api: Tally,
) {
  const calls = [
    () => fetch(`${baseUrl}/api/devices?per_page=100`, { headers: { authorization: `Bearer ${token}` } }),
    () => fetch(`${baseUrl}/api/sessions?per_page=100`, { headers: { authorization: `Bearer ${token}` } }),
    (index: number) => {
      const user = users[index % users.length] as SeededUser;
      return fetch(`${baseUrl}/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: user.username, password: user.password }),
      });
    },
  ];
  const inFlight: Promise<void>[] = [];
  const startedAt = Date.now();
  for (let index = 0; Date.now() < until; index++) {
    const started = performance.now();
    const request = calls[index % calls.length] as (index: number) => Promise<Response>;
    inFlight.push(
      request(Math.floor(index / calls.length)).then(
        async (response) => {
          await response.arrayBuffer();
          if (response.ok) api.succeed(performance.now() - started);
          else api.fail(`HTTP ${response.status}`);
        },
        (error: unknown) => api.fail(reasonOf(error)),
      ),
    );
    // On a schedule, not a pause after each call: a late call does not push the later ones back.
    await settle(startedAt + ((index + 1) * 1000) / perSecond - Date.now());
  }
  await Promise.all(inFlight);
}

type Sample = {
  minute: number;
  rssMiB: number;
  fds: number;
  /** The descriptors by kind (`descriptorKinds`). */
  kinds: Map<string, number>;
  /** What each descriptor points to. */
  targets: string[];
  machineLoad: number;
};
type Health = { minute: number; heapUsedMiB: number; loopDelayP99Ms: number; loopDelayMaxMs: number };

/** The server's "process health" lines (lib/process-health.ts), timed from `startedAt`. */
function healthLines(server: RunningServer, startedAt: number): Health[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.includes('"message":"process health"'))
    .map((line) => {
      const fields = JSON.parse(line) as Health & { time: string };
      return { ...fields, minute: (Date.parse(fields.time) - startedAt) / 60_000 };
    });
}

/** The median of `value` over the samples taken within [from, to) minutes. */
function windowMedian<T extends { minute: number }>(
  samples: T[],
  from: number,
  to: number,
  value: (sample: T) => number,
) {
  return median(samples.filter((sample) => sample.minute >= from && sample.minute < to).map(value));
}

/**
 * The open descriptors by kind, the median of each window (a kind missing from a sample counts
 * 0), then the files open at the last sample that were not at the warm window's last one.
 */
function descriptorGrowth(
  samples: Sample[],
  warm: readonly [number, number],
  end: readonly [number, number],
  shorten: (file: string) => string,
): string[] {
  const kinds = new Set(samples.flatMap((sample) => [...sample.kinds.keys()]));
  const rows = [...kinds].map((kind) => {
    const from = windowMedian(samples, ...warm, (sample) => sample.kinds.get(kind) ?? 0);
    const to = windowMedian(samples, ...end, (sample) => sample.kinds.get(kind) ?? 0);
    return { kind, from, to };
  });
  rows.sort((a, b) => b.to - b.from - (a.to - a.from) || b.to - a.to);
  const lines = rows.map(
    ({ kind, from, to }) => `${kind}: ${from} -> ${to} (${to - from >= 0 ? "+" : ""}${to - from})`,
  );
  const atWarm = samples.filter((sample) => sample.minute < warm[1]).at(-1);
  const last = samples.at(-1);
  if (atWarm && last) {
    const before = new Set(atWarm.targets);
    const after = new Set(last.targets);
    const files = (targets: string[]) => (targets.length ? targets.map(shorten).sort().join(", ") : "none");
    const opened = last.targets.filter((target) => target.startsWith("/") && !before.has(target));
    const closed = atWarm.targets.filter((target) => target.startsWith("/") && !after.has(target));
    lines.push(
      `files open at minute ${last.minute.toFixed(1)} and not at ${atWarm.minute.toFixed(1)}: ${files(opened)}`,
      `files open at minute ${atWarm.minute.toFixed(1)} and not at ${last.minute.toFixed(1)}: ${files(closed)}`,
    );
  }
  return lines;
}

const growth = (from: number, to: number) =>
  `${from.toFixed(1)} -> ${to.toFixed(1)} (${(((to - from) / from) * 100).toFixed(2)}%)`;

/**
 * `npm run bench -- soak [--minutes 30] [--sessions 200] [--agents 4] [--echo-seconds 10]
 * [--api-rate 5] [--database pglite|postgres]` (or SOAK_MINUTES=2): SSH sessions through real
 * agents' tunnels, each echoing a line every 10 s and logging in anew every few minutes, and API calls at a fixed
 * rate, for that long. The server's memory, descriptors and event-loop delay at the end are
 * compared with a point after the warm-up, in the same run.
 */
export async function soakBenchmark(args: Map<string, string>) {
  const minutes = Number(args.get("minutes") ?? process.env.SOAK_MINUTES ?? 30);
  const sessionCount = Number(args.get("sessions") ?? 200);
  const agentCount = Number(args.get("agents") ?? 4);
  const apiRate = Number(args.get("api-rate") ?? 5);
  const echoSeconds = Number(args.get("echo-seconds") ?? 10);
  const kind = args.get("database") ?? "pglite";
  // The warmed-up point: after the first minutes; each figure is the median of a window of samples.
  const warmMinute = Math.min(5, minutes / 4);
  const window = Math.min(2, minutes / 8);
  ensureBuild();

  const database =
    kind === "postgres"
      ? await createTestDatabase(process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
      : undefined;
  const server = await startServer({ DATABASE_URL: database?.url, LOG_LEVEL: "info", HEALTH_REPORT_SECONDS: "10" });
  // A new account of the machine's: the sessions' shells run its startup files, and the bench
  // user's own (root's pyenv, say) can take seconds each or wait on each other's locks.
  const account = createAccount();
  const fleet = await agentFleet(server, agentCount, account.name);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const users = [
      fleet.seeded.owner,
      ...(await Promise.all([1, 2, 3, 4].map(() => seedUser({}, { baseUrl: server.url })))),
    ];
    const pid = server.process.pid ?? 0;
    print(
      `soak: ${minutes} min, ${sessionCount} SSH sessions over ${agentCount} agents (echo every ${echoSeconds} s, new login every ~5 min, first logins over ${Math.min(3, minutes / 10)} min), API ${apiRate}/s, ${kind}`,
    );
    const traffic: Traffic = { logins: new Tally(), echoes: new Tally(), drops: new Tally() };
    const api = new Tally();
    const counts = () => {
      const operations = traffic.logins.ok + traffic.echoes.ok + api.ok;
      const failures = traffic.logins.failed + traffic.echoes.failed + traffic.drops.failed + api.failed;
      return { operations: operations + failures, failures };
    };
    const startedAt = Date.now();
    const until = startedAt + minutes * 60_000;
    const samples: Sample[] = [];
    const portNames = new Map([
      [server.port, "http"],
      [server.sshPort, "ssh"],
    ]);
    const shorten = (file: string) => file.replace(server.dataDir, "DATA_DIR").replace(process.cwd(), ".");
    const sampler = setInterval(() => {
      // A server that exited has no /proc entry: the run goes on to its report.
      if (server.process.exitCode !== null || server.process.signalCode !== null) return;
      const targets = descriptorTargets(pid);
      const sample = {
        minute: (Date.now() - startedAt) / 60_000,
        rssMiB: rssKiB(pid) / 1024,
        fds: targets.length,
        kinds: descriptorKinds(pid, targets, portNames, shorten),
        targets,
        // The machine's 1-minute load average: other work on it slows everything measured here.
        machineLoad: Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]),
      };
      samples.push(sample);
      if (samples.length % 6 === 0)
        print(
          `  ${sample.minute.toFixed(1)} min: RSS ${sample.rssMiB.toFixed(0)} MiB, ${sample.fds} fds, ok/failed: logins ${traffic.logins.ok}/${traffic.logins.failed}, echoes ${traffic.echoes.ok}/${traffic.echoes.failed}, API ${api.ok}/${api.failed}, dropped ${traffic.drops.failed}`,
        );
    }, 10_000);
    // The counts at the warmed-up point: the error rate is judged on what came after.
    let atWarm = { operations: 0, failures: 0 };
    const warmTimer = setTimeout(() => {
      atWarm = counts();
    }, warmMinute * 60_000);
    await Promise.all([
      apiLoop(server.url, fleet.owner.token ?? "", users, apiRate, until, api),
      ...Array.from({ length: sessionCount }, async (_, index) => {
        // Logins spread over the first 3 minutes (a tenth of a short run); each session from its
        // own loopback address, as people come from their own (the lockout counts per source and login).
        await settle((Math.min(180_000, minutes * 6_000) * index) / sessionCount);
        const source = `127.0.${1 + Math.floor(index / 250)}.${2 + (index % 250)}`;
        await sessionLoop(fleet.login(index, source), until, echoSeconds * 1000, 5 * 60_000, traffic);
      }),
    ]);
    clearInterval(sampler);

    const health = healthLines(server, startedAt).filter((line) => line.minute > warmMinute);
    const warm = [warmMinute, warmMinute + window] as const;
    const end = [minutes - window, minutes + 1] as const;
    const rss = [windowMedian(samples, ...warm, (s) => s.rssMiB), windowMedian(samples, ...end, (s) => s.rssMiB)];
    const heap = [
      windowMedian(health, ...warm, (h) => h.heapUsedMiB),
      windowMedian(health, ...end, (h) => h.heapUsedMiB),
    ];
    const fds = [windowMedian(samples, ...warm, (s) => s.fds), windowMedian(samples, ...end, (s) => s.fds)];
    const loopP99 = health.map((line) => line.loopDelayP99Ms);
    clearTimeout(warmTimer);
    const total = counts();
    const afterWarm = { operations: total.operations - atWarm.operations, failures: total.failures - atWarm.failures };
    const errorRate = afterWarm.failures / afterWarm.operations;
    const [rssFrom = 0, rssTo = 0] = rss;
    const [fdsFrom = 0, fdsTo = 0] = fds;
    const worstLoopP99 = Math.max(...loopP99);
    const slowPeriods = loopP99.filter((value) => value >= 50).length;
    const loads = samples.map((sample) => sample.machineLoad);
    print(
      `machine load average (2 cores): median ${median(loads).toFixed(1)}, min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)}`,
    );
    print(traffic.logins.summary("SSH logins"));
    print(traffic.echoes.summary("echo round trips"));
    print(`sessions dropped by the server: ${traffic.drops.failed}`);
    print(api.summary("API calls"));
    print(`server RSS (MiB, minute ${warm[0]}-${warm[1]} vs the last ${window}): ${growth(rssFrom, rssTo)}`);
    print(`server heap used (MiB, same windows): ${growth(heap[0] ?? 0, heap[1] ?? 0)}`);
    print(`server open fds (same windows): ${fdsFrom} -> ${fdsTo}`);
    for (const line of descriptorGrowth(samples, warm, end, shorten)) print(`  ${line}`);
    print(
      `event-loop delay per 10 s after the warm-up: p99 median ${median(loopP99).toFixed(1)} ms, worst ${worstLoopP99.toFixed(1)} ms, ${slowPeriods} of ${loopP99.length} periods at 50 ms or more; max ${Math.max(...health.map((line) => line.loopDelayMaxMs)).toFixed(1)} ms`,
    );
    print(
      `errors: ${total.failures} of ${total.operations} operations in the whole run; after the warm-up ${afterWarm.failures} of ${afterWarm.operations} = ${(errorRate * 100).toFixed(3)}%`,
    );
    const bars = [
      ["memory growth < 5%", (rssTo - rssFrom) / rssFrom < 0.05],
      ["no fd growth (within 1%)", fdsTo - fdsFrom <= Math.max(2, fdsFrom * 0.01)],
      // Of the periods' p99s at most 1% may pass the bar: that bounds the run's p99 likewise.
      ["event-loop delay p99 < 50 ms (in 99% of the 10 s periods)", slowPeriods <= loopP99.length * 0.01],
      ["error rate after the warm-up < 0.1%", errorRate < 0.001],
    ] as const;
    for (const [bar, passed] of bars) print(`${passed ? "pass" : "FAIL"}: ${bar}`);
  } finally {
    fleet.stop();
    await server.stop();
    account.remove();
    await database?.drop();
  }
}
