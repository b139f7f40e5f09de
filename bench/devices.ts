import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { ensureBuild } from "../lib/build/ensure-build";
import { openDatabase } from "../lib/db";
import { createNamespace } from "../lib/services/namespaces";
import { createUser } from "../lib/services/users";
import { newDataDir } from "../testing/data-dir";
import { createTestDatabase } from "../testing/database";
import { startServer } from "../testing/server";

import { percentile } from "./kit";

type Latency = { p50: number; p99: number };

/** The goal for the default page (no query: the first 10 devices by `last_seen`, newest first). */
const defaultPageGoalMs = 50;

function percentiles(samples: number[]): Latency {
  return { p50: Number(percentile(samples, 0.5).toFixed(1)), p99: Number(percentile(samples, 0.99).toFixed(1)) };
}

async function timeRequests(url: string, token: string, count: number, query: (index: number) => string) {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const response = await fetch(`${url}/api/devices?${query(index)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET /api/devices answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

const containsFilter = (value: string) =>
  Buffer.from(JSON.stringify([{ type: "property", params: { name: "name", operator: "contains", value } }])).toString(
    "base64",
  );

/**
 * Seeds the user `bench` (password `bench-password`), its namespace `bench` and `count` accepted
 * devices `device-N` (uid: the hex SHA-256 of `bench-N`) straight into the database, in one
 * statement per 10,000: a third of them online, or none with `online: false`; each with
 * `publicKey` (PEM) when given. Answers the namespace's tenant id.
 */
export async function seedDevices(
  config: { DATABASE_URL?: string; DATA_DIR: string },
  count: number,
  { online = true, publicKey = "key" }: { online?: boolean; publicKey?: string } = {},
) {
  const database = await openDatabase({ ...config, DATABASE_POOL_SIZE: 2, DATABASE_STATEMENT_TIMEOUT_SECONDS: 30 });
  try {
    const user = await createUser(database.db, {
      name: "Bench",
      username: "bench",
      email: "bench@example.com",
      password: "bench-password",
    });
    const namespace = await createNamespace(database.db, user.id, { name: "bench" });
    for (let start = 0; start < count; start += 10_000) {
      await database.db.execute(sql`
        insert into devices (uid, tenant_id, name, identity, info, public_key, key_digest, status, online)
        select encode(sha256(('bench-' || n)::bytea), 'hex'), ${namespace?.tenant_id}::uuid, 'device-' || n,
          jsonb_build_object('mac', ''), jsonb_build_object('id', 'debian', 'pretty_name', 'Debian', 'version', '1',
          'arch', 'x86_64', 'platform', 'native'), ${publicKey}, 'bench-' || n, 'accepted', ${online} and n % 3 = 0
        from generate_series(${start}::int, ${Math.min(count, start + 10_000) - 1}::int) as n`);
    }
    // Seen one second apart, device-0 last: the insert's trigger stamped them all now. The vacuum
    // removes the versions the stamps left, as autovacuum (or the embedded database's timer) would.
    await database.db.execute(sql`
      update device_presence set last_seen = now() - make_interval(secs => substring(devices.key_digest from 7)::int)
      from devices where devices.uid = device_presence.uid`);
    await database.db.execute(sql`analyze devices`);
    await database.db.execute(sql`vacuum analyze device_presence`);
    return namespace?.tenant_id ?? "";
  } finally {
    await database.close();
  }
}

async function measure(kind: "postgres" | "pglite", count: number, requests: number) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = kind === "postgres" ? await createTestDatabase(adminUrl) : undefined;
  const dataDir = newDataDir();
  try {
    await seedDevices({ DATABASE_URL: database?.url, DATA_DIR: dataDir }, count);
    const server = await startServer({ DATABASE_URL: database?.url, DATA_DIR: dataDir });
    try {
      const login = await fetch(`${server.url}/api/login`, {
        method: "POST",
        body: JSON.stringify({ username: "bench", password: "bench-password" }),
      });
      const { token } = (await login.json()) as { token: string };
      await timeRequests(server.url, token, 20, () => "");
      const defaultPage = await timeRequests(server.url, token, requests, () => "");
      const pages = await timeRequests(server.url, token, requests, (index) => `per_page=10&page=${1 + (index % 50)}`);
      const filtered = await timeRequests(
        server.url,
        token,
        requests,
        (index) => `per_page=10&filter=${containsFilter(`ce-${4000 + index * 37}`)}`,
      );
      return { defaultPage, pages, filtered };
    } finally {
      await server.stop();
    }
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- devices [--devices 100000] [--requests 300]`: latency of GET /api/devices
 * over that many devices on each database: the default page (no query), pages 1 to 50 in the
 * default order, and a `contains` filter on the name.
 */
export async function deviceListBenchmark(args: Map<string, string>) {
  const count = Number(args.get("devices") ?? 100_000);
  const requests = Number(args.get("requests") ?? 300);
  ensureBuild();
  const lines = [`device list benchmark: ${count} devices, ${requests} sequential requests each`];
  for (const kind of ["postgres", "pglite"] as const) {
    const { defaultPage, pages, filtered } = await measure(kind, count, requests);
    const load = loadavg()
      .map((value) => value.toFixed(1))
      .join(" ");
    lines.push(
      `${kind}: default page p50 ${defaultPage.p50} ms, p99 ${defaultPage.p99} ms` +
        ` (goal ${defaultPageGoalMs} ms: ${defaultPage.p99 <= defaultPageGoalMs ? "met" : "NOT MET"});` +
        ` pages 1-50 p50 ${pages.p50} ms, p99 ${pages.p99} ms;` +
        ` contains filter p50 ${filtered.p50} ms, p99 ${filtered.p99} ms (${(filtered.p99 / pages.p99).toFixed(2)}x the pages' p99);` +
        ` load average ${load}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
