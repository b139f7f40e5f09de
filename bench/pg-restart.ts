import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuild } from "../lib/build/ensure-build";
import { acceptAgentDevice, spawnAgent } from "../testing/agents";
import { hasPrivatePostgres, startPrivatePostgres } from "../testing/private-postgres";
import { seedNamespace } from "../testing/seeds/namespaces";
import { startServer } from "../testing/server";
import { randomEd25519Line } from "../testing/ssh-keys";
import { type Api, percentile, settle } from "./kit";

type Answer = { at: number; ms: number; status: number | string; hasMessage: boolean };
type Write = { kind: "public key" | "namespace"; id: string; answer: Answer };

/** One API call with a 60 s cap: its status (or the network error), how long it took, and whether a failure said why. */
async function timedCall(owner: Api, method: string, url: string, body?: unknown): Promise<Answer & { body: unknown }> {
  const at = Date.now();
  const started = performance.now();
  try {
    const response = await fetch(`${owner.baseUrl}${url}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const hasMessage = typeof (parsed as { message?: unknown } | undefined)?.message === "string";
    return { at, ms: performance.now() - started, status: response.status, hasMessage, body: parsed };
  } catch (error) {
    const status = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.name) : "error";
    return { at, ms: performance.now() - started, status, hasMessage: false, body: undefined };
  }
}

/** Creates public keys and namespaces one after another until `isRunning()` turns false. */
async function writer(owner: Api, writes: Write[], isRunning: () => boolean) {
  for (let index = 0; isRunning(); index++) {
    const id = `pg${randomBytes(5).toString("hex")}`;
    if (index % 2 === 0) {
      const answer = await timedCall(owner, "POST", "/api/sshkeys/public-keys", {
        data: Buffer.from(randomEd25519Line()).toString("base64"),
        name: id,
        filter: { hostname: ".*" },
        username: ".*",
      });
      writes.push({ kind: "public key", id: String((answer.body as { fingerprint?: string })?.fingerprint), answer });
    } else {
      const answer = await timedCall(owner, "POST", "/api/namespaces", { name: id });
      writes.push({ kind: "namespace", id, answer });
    }
    // A failed write is retried at once by people and scripts alike; a short pause keeps the log readable.
    if (typeof writes.at(-1)?.answer.status !== "number" || (writes.at(-1)?.answer.status as number) >= 500)
      await settle(50);
  }
}

/** Every value of `field` in the pages of a list. */
async function listAll(owner: Api, url: string, field: string): Promise<Set<string>> {
  const values = new Set<string>();
  for (let page = 1; ; page++) {
    const response = await fetch(`${owner.baseUrl}${url}?per_page=100&page=${page}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const items = (await response.json()) as Record<string, string>[];
    for (const item of items) values.add(String(item[field]));
    if (items.length < 100) return values;
  }
}

const statuses = (answers: Answer[]) => {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count}x ${status}`).join(", ");
};

/**
 * `npm run bench -- pg-restart [--down-seconds 10] [--writers 4] [--agents 3]`: a private
 * PostgreSQL 15 (initdb on a free port; the machine's server is never touched) is stopped for
 * `--down-seconds` and started again under steady writes (public keys, namespaces) and agents with tunnels.
 * The server must live on, answer while the database is away with a 503
 * `{message}`, answer again within 5 s of its return, and keep every write it acknowledged.
 */
export async function pgRestartBenchmark(args: Map<string, string>) {
  const downSeconds = Number(args.get("down-seconds") ?? 10);
  const writerCount = Number(args.get("writers") ?? 4);
  const agentCount = Number(args.get("agents") ?? 3);
  if (!hasPrivatePostgres()) throw new Error("PostgreSQL 15's programs (/usr/lib/postgresql/15/bin) are needed");
  ensureBuild();
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const postgres = await startPrivatePostgres();
  const server = await startServer({ DATABASE_URL: postgres.url, DEVICE_REGISTRATIONS_PER_MINUTE: "1000" });
  const agents: { child: ReturnType<typeof spawnAgent>["child"]; dataDir: string }[] = [];
  try {
    const seeded = await seedNamespace(undefined, { baseUrl: server.url });
    const owner: Api = { baseUrl: server.url, token: seeded.owner.tenantToken };
    for (let index = 0; index < agentCount; index++) {
      const hostname = `pg-agent-${index}`;
      const dataDir = mkdtempSync(path.join(tmpdir(), "das-bench-agent-"));
      const agent = spawnAgent(
        { server: server.url, tenantId: seeded.tenantId, hostname, dataDir },
        { HEARTBEAT_INTERVAL: "1" },
      );
      agents.push({ child: agent.child, dataDir });
      await acceptAgentDevice(hostname, owner);
    }

    const writes: Write[] = [];
    let isRunning = true;
    const writers = Array.from({ length: writerCount }, () => writer(owner, writes, () => isRunning));
    await settle(10_000);
    const stoppedAt = Date.now();
    postgres.stop();
    const stopTook = Date.now() - stoppedAt;
    await settle(downSeconds * 1000);
    const startingAt = Date.now();
    postgres.start();
    const backAt = Date.now();
    // The first healthcheck and write answered after the database is back.
    let healthyAfter = Number.NaN;
    while (Date.now() - backAt < 30_000) {
      const answer = await timedCall(owner, "GET", "/api/healthcheck");
      if (answer.status === 200) {
        healthyAfter = Date.now() - backAt;
        break;
      }
      await settle(50);
    }
    await settle(15_000);
    isRunning = false;
    await Promise.all(writers);

    const before = writes.filter((write) => write.answer.at < stoppedAt);
    const down = writes.filter((write) => write.answer.at >= stoppedAt && write.answer.at < backAt);
    const after = writes.filter((write) => write.answer.at >= backAt);
    const firstWriteAfter = after.find((write) => write.answer.status === 200 || write.answer.status === 201);
    const acknowledged = writes.filter((write) => typeof write.answer.status === "number" && write.answer.status < 300);
    const keys = await listAll(owner, "/api/sshkeys/public-keys", "fingerprint");
    const namespaces = await listAll(owner, "/api/namespaces", "name");
    const lost = acknowledged.filter((write) => !(write.kind === "public key" ? keys : namespaces).has(write.id));
    const failedButKept = writes.filter(
      (write) => !acknowledged.includes(write) && (write.kind === "public key" ? keys : namespaces).has(write.id),
    );
    const downMs = down.map((write) => write.answer.ms);
    const downFailures = down.filter((write) => write.answer.status !== 200);
    const serverAlive = server.process.exitCode === null && server.process.signalCode === null;

    print(
      `pg-restart: private PostgreSQL 15 stopped (fast) for ${downSeconds} s under ${writerCount} writers (public keys, namespaces) and ${agentCount} agents beating every second`,
    );
    print(`stopping took ${stopTook} ms, starting ${backAt - startingAt} ms`);
    print(
      `writes before: ${before.length} (${statuses(before.map((write) => write.answer))}), p99 ${percentile(
        before.map((write) => write.answer.ms),
        0.99,
      ).toFixed(0)} ms`,
    );
    print(
      `writes while down: ${down.length} (${statuses(down.map((write) => write.answer))}); slowest ${Math.max(0, ...downMs).toFixed(0)} ms, p50 ${percentile(downMs, 0.5).toFixed(0)} ms; failures with a JSON message: ${downFailures.filter((write) => write.answer.hasMessage).length} of ${downFailures.length}`,
    );
    print(`writes after: ${after.length} (${statuses(after.map((write) => write.answer))})`);
    print(
      `back: healthcheck 200 ${healthyAfter.toFixed(0)} ms after the database accepted connections, first acknowledged write ${firstWriteAfter ? `${(firstWriteAfter.answer.at + firstWriteAfter.answer.ms - backAt).toFixed(0)} ms` : "never"}`,
    );
    print(
      `acknowledged writes: ${acknowledged.length}, lost: ${lost.length}; refused writes that were kept anyway: ${failedButKept.length}`,
    );
    print(`server process alive: ${serverAlive}`);
    const bars = [
      ["server lives on", serverAlive],
      ["answers again within 5 s", healthyAfter < 5_000],
      ["no acknowledged write lost", lost.length === 0],
      [
        "a 503 {message} while down, none hung",
        downFailures.every((write) => write.answer.status === 503 && write.answer.hasMessage),
      ],
    ] as const;
    for (const [bar, passed] of bars) print(`${passed ? "pass" : "FAIL"}: ${bar}`);
  } finally {
    for (const agent of agents) {
      agent.child.kill("SIGTERM");
      rmSync(agent.dataDir, { recursive: true, force: true });
    }
    await server.stop();
    postgres.remove();
  }
}
