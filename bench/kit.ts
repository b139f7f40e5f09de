import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import ssh2, { type Client, type ConnectConfig } from "ssh2";
import { acceptAgentDevice, spawnAgent } from "../testing/agents";
import { seedNamespace } from "../testing/seeds/namespaces";
import type { RunningServer } from "../testing/server";
import { ed25519KeyPair } from "../testing/ssh-keys";
import { waitFor } from "../testing/wait";

/** What the benchmarks share: API calls, SSH logins, real agents and process figures. */

export type Api = { baseUrl: string; token?: string };

export async function api<T = unknown>(
  method: string,
  url: string,
  { baseUrl, token }: Api,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

export function connect(config: ConnectConfig): Promise<Client> {
  const client = new ssh2.Client();
  return new Promise((resolve, reject) => {
    client.once("ready", () => resolve(client));
    // ssh2 may report more than one error for a connection: each after the first is ignored.
    client.on("error", reject);
    client.connect({ readyTimeout: 60_000, ...config });
  });
}

/** `work`, or a failure naming `what` when it has not settled within `ms`. */
export const withTimeout = <T>(work: Promise<T>, ms: number, what: string) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  ]);

export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);

export const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** The value below which `share` (0..1) of the values lie. */
export function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

export const median = (values: number[]) => percentile(values, 0.5);

/** A new key pair whose public key logs in to every device and account of the owner's namespace. */
export async function addLoginKey(owner: Api): Promise<string> {
  const clientKey = ed25519KeyPair();
  await api("POST", "/api/sshkeys/public-keys", owner, {
    data: Buffer.from(clientKey.public).toString("base64"),
    name: "bench",
    filter: { hostname: ".*" },
    username: ".*",
  });
  return clientKey.private;
}

/**
 * A namespace with `agentCount` real agents (`agent/main.ts` processes, as root) whose devices
 * are accepted and whose tunnels are up, and a namespace key the bench logs in with as `user`
 * (the local user by default): `login(index, localAddress)` is the gateway login to agent
 * `index % agentCount`.
 */
export async function agentFleet(server: RunningServer, agentCount: number, user = userInfo().username) {
  const seeded = await seedNamespace(undefined, { baseUrl: server.url });
  const owner: Api = { baseUrl: server.url, token: seeded.owner.tenantToken };
  const agents = Array.from({ length: agentCount }, (_, index) => {
    const hostname = `bench-${index}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), "das-bench-agent-"));
    return { hostname, dataDir, ...spawnAgent({ server: server.url, tenantId: seeded.tenantId, hostname, dataDir }) };
  });
  const stop = () => {
    for (const agent of agents) {
      agent.child.kill("SIGTERM");
      rmSync(agent.dataDir, { recursive: true, force: true });
    }
  };
  try {
    for (const agent of agents) {
      await acceptAgentDevice(agent.hostname, owner);
      await waitFor(
        () => `the tunnel of ${agent.hostname}:\n${agent.output()}`,
        () => agent.output().includes('"tunnel connected"'),
        60,
      );
    }
    const privateKey = await addLoginKey(owner);
    const login = (index: number, localAddress = "127.0.0.1"): ConnectConfig => ({
      host: "127.0.0.1",
      port: server.sshPort,
      localAddress,
      username: `${user}@${seeded.name}.${agents[index % agentCount]?.hostname}`,
      privateKey,
    });
    return { seeded, owner, agents, login, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
