import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { ensureBuild } from "../lib/build/ensure-build";
import { openDatabase } from "../lib/db";
import { webhookEventTypes } from "../models/enums";
import { createTestDatabase } from "../testing/database";
import { seedNamespace } from "../testing/seeds/namespaces";
import { type RunningServer, startServer } from "../testing/server";
import { startWebhookReceiver } from "../testing/webhook-receiver";
import { type Drive, load } from "./heartbeat";
import { api, type Load, settle } from "./kit";
import { makeDevices, registerAll } from "./simulator";

/** One mode's runs: the storm (every device coming back online) and the steady state right after. */
type Run = { label: string; storm: Load; steady: Load; audited: number; delivered: number; drainSeconds: number };

/**
 * `npm run bench -- webhooks [--devices 10000] [--seconds 10] [--connections 64]
 * [--databases pglite,postgres]`: heartbeats per second with webhooks off, on (every event type,
 * to a receiver on the loopback) and off again, on one database; each mode twice: a storm, every
 * device offline before it and online from its first heartbeat (each a transition: its event, its
 * audit row and, with webhooks, its deliveries), then the steady state, plain heartbeats of online
 * devices once the storm's deliveries are all sent. The figures are the ratios of "on" to the mean
 * of the two "off" runs.
 */
export async function webhooksBenchmark(args: Map<string, string>) {
  const deviceCount = Number(args.get("devices") ?? 10_000);
  const drive: Drive = {
    seconds: Number(args.get("seconds") ?? 10),
    connections: Number(args.get("connections") ?? 64),
  };
  const databases = (args.get("databases") ?? "pglite,postgres").split(",") as ("pglite" | "postgres")[];
  ensureBuild();
  const lines = [
    `webhooks benchmark: ${deviceCount} devices, each offline before a run and online from its first heartbeat, ${drive.seconds} s at full speed, ${drive.connections} connections; load generator, receiver and server share the machine`,
  ];
  for (const kind of databases) {
    const runs = await measure(kind, deviceCount, drive);
    const off = runs.filter((run) => run.label !== "on");
    const on = runs.find((run) => run.label === "on");
    const mean = (phase: "storm" | "steady") => off.reduce((sum, run) => sum + run[phase].rps, 0) / off.length;
    const figures = (load: Load) => `${load.rps}/s (p50 ${load.p50} ms, p99 ${load.p99} ms, failed ${load.failed})`;
    lines.push(`${kind}:`);
    for (const run of runs) {
      lines.push(
        `  webhooks ${run.label.padEnd(4)} storm ${figures(run.storm)}, steady ${figures(run.steady)};` +
          ` audit rows ${run.audited}, deliveries ${run.delivered}${run.label === "on" ? `, the last ${run.drainSeconds} s after the storm's load` : ""}`,
      );
    }
    if (on) {
      lines.push(
        `  on / off: steady ${(on.steady.rps / mean("steady")).toFixed(3)}x (goal: at least 0.9x), storm ${(on.storm.rps / mean("storm")).toFixed(3)}x`,
      );
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

async function measure(kind: "pglite" | "postgres", deviceCount: number, drive: Drive): Promise<Run[]> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = kind === "postgres" ? await createTestDatabase(adminUrl) : undefined;
  const receiver = await startWebhookReceiver();
  const env: Record<string, string | undefined> = {
    DATABASE_URL: database?.url,
    DEVICE_REGISTRATIONS_PER_MINUTE: "1000000",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  };
  let server: RunningServer = await startServer(env);
  env.DATA_DIR = server.dataDir;
  env.PORT = String(server.port);
  try {
    const namespace = await seedNamespace(undefined, { baseUrl: server.url });
    const owner = { baseUrl: server.url, token: namespace.owner.tenantToken };
    const devices = makeDevices(deviceCount, namespace.tenantId);
    await registerAll(server.url, devices, 64);
    const bodies = devices.map((device) => device.body);
    const runs: Run[] = [];
    for (const label of ["off", "on", "off"]) {
      const webhook =
        label === "on"
          ? await api<{ id: string }>("POST", "/api/webhooks", owner, {
              url: `${receiver.url}/bench`,
              events: webhookEventTypes,
            })
          : undefined;
      // Every device offline, so that its first heartbeat of the run is a transition.
      await server.stop();
      const counts = await query(
        env,
        sql`update devices set online = false`,
        sql`select count(*)::int as n from audit_entries`,
      );
      server = await startServer(env);
      const received = receiver.received.length;
      const storm = await load(server.url, bodies, drive);
      const stormEnded = Date.now();
      const audited = (await countAudit(server, owner)) - Number(counts[0]?.n ?? 0);
      let drainSeconds = 0;
      if (webhook) {
        while (
          (await api<unknown[]>("GET", `/api/webhooks/${webhook.id}/deliveries?status=pending&per_page=1`, owner))
            .length > 0
        ) {
          await settle(500);
        }
        drainSeconds = Math.round((Date.now() - stormEnded) / 100) / 10;
      }
      // The steady state: plain heartbeats of online devices, the storm's deliveries all sent.
      const steady = await load(server.url, bodies, drive);
      if (webhook) await api("DELETE", `/api/webhooks/${webhook.id}`, owner);
      runs.push({ label, storm, steady, audited, delivered: receiver.received.length - received, drainSeconds });
    }
    return runs;
  } finally {
    await server.stop();
    await receiver.close();
    await database?.drop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

/** Rows of the namespace's audit trail (the device changes of a run are in it). */
async function countAudit(server: RunningServer, owner: { baseUrl: string; token: string }) {
  const response = await fetch(`${server.url}/api/audit?per_page=1`, {
    headers: { authorization: `Bearer ${owner.token}` },
  });
  return Number(response.headers.get("x-total-count"));
}

/** Runs SQL on the stopped server's database (the embedded one belongs to one process at a time). */
async function query(env: Record<string, string | undefined>, ...statements: ReturnType<typeof sql>[]) {
  const opened = await openDatabase({
    DATA_DIR: env.DATA_DIR ?? "",
    DATABASE_URL: env.DATABASE_URL,
    DATABASE_POOL_SIZE: 2,
    DATABASE_STATEMENT_TIMEOUT_SECONDS: 60,
  });
  try {
    let rows: Record<string, unknown>[] = [];
    for (const statement of statements)
      rows = ((await opened.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;
    return rows;
  } finally {
    await opened.close();
  }
}
