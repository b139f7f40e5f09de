import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import type { Client, ClientChannel, ConnectConfig } from "ssh2";
import { ensureBuild } from "../lib/build/ensure-build";
import { acceptAgentDevice, spawnAgent } from "../testing/agents";
import { seedNamespace } from "../testing/seeds/namespaces";
import { freePort, type RunningServer, startServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import {
  type Api,
  addLoginKey,
  api,
  connect,
  cpuSeconds,
  inParallel,
  lowestRss,
  median,
  openTunnel,
  requireNativeSshCrypto,
  settle,
  simulatedDevices,
} from "./kit";

type RealAgent = { child: ChildProcess; output: () => string; dataDir: string };

/** The real agent (`agent/main.ts`) as a process, also serving its SSH server on `listenPort` for the baseline. */
function startAgent(baseUrl: string, tenantId: string, hostname: string, listenPort: number): RealAgent {
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-bench-agent-"));
  const agent = spawnAgent(
    { server: baseUrl, tenantId, hostname, dataDir },
    { AGENT_LISTEN: `127.0.0.1:${listenPort}` },
  );
  return { ...agent, dataDir };
}

function exec(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    client.exec(command, (error, channel) => (error ? reject(error) : resolve(channel))),
  );
}

const closed = (channel: ClientChannel) =>
  new Promise<number | undefined>((resolve) => {
    let code: number | undefined;
    channel.on("exit", (status: number | null) => {
      code = status ?? undefined;
    });
    channel.once("close", () => resolve(code));
    // A stream's close waits for its output to be read.
    channel.resume();
    channel.stderr.resume();
  });

/** Bytes per second of `bytes` written into `cat > /dev/null` on the device, until its exit status. */
async function upload(config: ConnectConfig, bytes: number): Promise<number> {
  const client = await connect(config);
  try {
    const channel = await exec(client, "cat > /dev/null");
    const done = closed(channel);
    const chunk = Buffer.alloc(256 * 1024, 7);
    const started = performance.now();
    for (let sent = 0; sent < bytes; ) {
      const size = Math.min(chunk.length, bytes - sent);
      if (!channel.write(size === chunk.length ? chunk : chunk.subarray(0, size))) await once(channel, "drain");
      sent += size;
    }
    channel.end();
    if ((await done) !== 0) throw new Error("cat did not exit with 0");
    return bytes / ((performance.now() - started) / 1000);
  } finally {
    client.end();
  }
}

/** Bytes per second of `head -c bytes /dev/zero` read from the device. */
async function download(config: ConnectConfig, bytes: number): Promise<number> {
  const client = await connect(config);
  try {
    const started = performance.now();
    const channel = await exec(client, `head -c ${bytes} /dev/zero`);
    let received = 0;
    channel.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    const code = await closed(channel);
    if (code !== 0 || received !== bytes) throw new Error(`received ${received} of ${bytes} bytes, exit ${code}`);
    return bytes / ((performance.now() - started) / 1000);
  } finally {
    client.end();
  }
}

/** Milliseconds from the TCP connect to the first byte of a login shell on a pty. */
async function firstShellByte(config: ConnectConfig): Promise<number> {
  const started = performance.now();
  const client = await connect(config);
  try {
    return await new Promise<number>((resolve, reject) =>
      client.shell({ term: "xterm", cols: 80, rows: 24 }, (error, channel) => {
        if (error) return reject(error);
        channel.once("data", () => {
          resolve(performance.now() - started);
          channel.close();
        });
      }),
    );
  } finally {
    client.end();
  }
}

/** Exit statuses of `count` short commands `exit N` through one connection: how many came back right. */
async function exitStatuses(config: ConnectConfig, count: number): Promise<number> {
  const client = await connect(config);
  let right = 0;
  try {
    for (let index = 0; index < count; index++) {
      const expected = (index * 37) % 256;
      const channel = await exec(client, `exit ${expected}`);
      if ((await closed(channel)) === expected) right += 1;
    }
  } finally {
    client.end();
  }
  return right;
}

/** Runs `measure` and says how many CPU seconds each named process spent meanwhile. */
async function withCpu<T>(pids: Record<string, number>, measure: () => Promise<T>) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const result = await measure();
  const spent = Object.entries(pids)
    .map(([name, pid]) => `${name} ${(cpuSeconds(pid) - (before[name] ?? 0)).toFixed(1)} s`)
    .join(", ");
  return { result, spent };
}

/** Server RSS per idle connected agent: `count` tunnels opened from this process. */
async function memoryPerAgent(server: RunningServer, owner: Api, tenantId: string, count: number) {
  const devices = await simulatedDevices(owner, tenantId, count);
  const idleRss = lowestRss(server.process.pid ?? 0);
  await settle(5_000);
  const before = idleRss();
  const started = performance.now();
  await inParallel(devices, 32, async (device) => {
    device.client = await openTunnel(server.url, device);
  });
  const connectSeconds = (performance.now() - started) / 1000;
  const steadyRss = lowestRss(server.process.pid ?? 0);
  await settle(10_000);
  const after = steadyRss();
  for (const device of devices) device.client?.end();
  return { before, after, perAgentKiB: (after - before) / count, connectSeconds };
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(text.trim());
  if (!match) throw new Error(`--size: expected a size like 100M or 1G, got ${text}`);
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(match[2] ?? "").toUpperCase() as "" | "K" | "M" | "G"];
  return Math.round(Number(match[1]) * unit);
}

const mb = (bytesPerSecond: number) => `${(bytesPerSecond / 1024 ** 2).toFixed(1)} MB/s`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;

/**
 * `npm run bench -- ssh [--size 1G] [--agents 5000] [--samples 10]`: the SSH path through the
 * gateway, the tunnel and the real agent, as ratios to a direct SSH connection to the same agent's
 * SSH server measured in the same run; exit statuses relayed; server memory per idle tunnel.
 */
export async function sshBenchmark(args: Map<string, string>) {
  const bytes = parseSize(args.get("size") ?? "1G");
  const agentCount = Number(args.get("agents") ?? 5_000);
  const samples = Number(args.get("samples") ?? 10);
  requireNativeSshCrypto();
  ensureBuild();

  const server = await startServer({ DEVICE_REGISTRATIONS_PER_MINUTE: "1000000", LOG_LEVEL: "warn" });
  let agent: RealAgent | undefined;
  try {
    const seeded = await seedNamespace(undefined, { baseUrl: server.url });
    const { tenantId, name: namespace } = seeded;
    const owner = { baseUrl: server.url, token: seeded.owner.tenantToken };
    const info = await api<{ endpoints: { ssh: string } }>("GET", "/info", { baseUrl: server.url });
    const sshPort = Number(info.endpoints.ssh.split(":").pop());
    const listenPort = await freePort();
    const hostname = "bench-device";
    agent = startAgent(server.url, tenantId, hostname, listenPort);
    const running = agent;
    await acceptAgentDevice(hostname, owner);
    await waitFor(
      () => `the agent's tunnel:\n${running.output()}`,
      () => running.output().includes('"tunnel connected"'),
      60,
    );

    // The bench logs in as itself: through the gateway with a namespace key, directly with the
    // gateway's host key (the one key the agent's SSH server accepts besides passwords).
    const user = userInfo().username;
    const clientKey = await addLoginKey(owner);
    const viaGateway: ConnectConfig = {
      host: "127.0.0.1",
      port: sshPort,
      username: `${user}@${namespace}.${hostname}`,
      privateKey: clientKey,
    };
    const direct: ConnectConfig = {
      host: "127.0.0.1",
      port: listenPort,
      username: user,
      privateKey: readFileSync(path.join(server.dataDir, "ssh_host_ed25519_key")),
    };

    const print = (line: string) => process.stdout.write(`${line}\n`);
    print(
      `ssh benchmark: ${(bytes / 1024 ** 2).toFixed(0)} MB each way, ${samples} shell logins per path, ssh2 native crypto`,
    );
    const pids = { server: server.process.pid ?? 0, agent: running.child.pid ?? 0, client: process.pid };
    for (const [label, transfer] of [
      ["upload   (cat > /dev/null)", upload],
      ["download (head /dev/zero)  ", download],
    ] as const) {
      const directRun = await withCpu(pids, () => transfer(direct, bytes));
      const gatewayRun = await withCpu(pids, () => transfer(viaGateway, bytes));
      print(
        `${label}: direct ${mb(directRun.result)}, via gateway ${mb(gatewayRun.result)} = ${percent(gatewayRun.result / directRun.result)} of direct`,
      );
      print(`  CPU direct: ${directRun.spent}; via gateway: ${gatewayRun.spent}`);
    }
    const directFirst: number[] = [];
    const gatewayFirst: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      directFirst.push(await firstShellByte(direct));
      gatewayFirst.push(await firstShellByte(viaGateway));
    }
    const [directMs, gatewayMs] = [median(directFirst), median(gatewayFirst)];
    print(
      `first shell byte (median):   direct ${directMs.toFixed(0)} ms, via gateway ${gatewayMs.toFixed(0)} ms = direct + ${(gatewayMs - directMs).toFixed(0)} ms`,
    );
    print(`exit statuses relayed right: ${await exitStatuses(viaGateway, 100)} of 100`);
    if (agentCount > 0) {
      const memory = await memoryPerAgent(server, owner, tenantId, agentCount);
      print(
        `idle tunnels: ${agentCount} connected in ${memory.connectSeconds.toFixed(1)} s; server RSS ${(memory.before / 1024).toFixed(0)} -> ${(memory.after / 1024).toFixed(0)} MB = ${memory.perAgentKiB.toFixed(1)} KB per agent`,
      );
    }
  } finally {
    agent?.child.kill("SIGTERM");
    if (agent) rmSync(agent.dataDir, { recursive: true, force: true });
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}
