import { createPublicKey } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import ssh2, { type Client, type ConnectConfig, type ParsedKey } from "ssh2";
import WebSocket, { createWebSocketStream } from "ws";
import { publicKeyAuth } from "../agent/identity";
import { parseSshKey } from "../lib/ssh/device-keys";
import { acceptAgentDevice, agentBody, spawnAgent } from "../testing/agents";
import { seedNamespace } from "../testing/seeds/namespaces";
import { type RunningServer, root } from "../testing/server";
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

/**
 * The lowest RSS of `pid` from now until the answer is called, read every 250 ms: what the
 * process holds once its collector has run. One reading also counts the garbage not yet
 * collected, and moved a tunnel's share between 23 and 35 KB across runs of the same code.
 */
export function lowestRss(pid: number): () => number {
  let lowest = Number.POSITIVE_INFINITY;
  const read = () => {
    lowest = Math.min(lowest, rssKiB(pid) || lowest);
  };
  read();
  const timer = setInterval(read, 250);
  return () => {
    clearInterval(timer);
    read();
    return lowest;
  };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** What each open descriptor of `pid` points to (`/proc/PID/fd/N`): `socket:[inode]`, `pipe:[..]`, a path... */
export function descriptorTargets(pid: number): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // Closed between the listing and the read.
    }
  }
  return targets;
}

const tcpStates = [
  "",
  "ESTABLISHED",
  "SYN_SENT",
  "SYN_RECV",
  "FIN_WAIT1",
  "FIN_WAIT2",
  "TIME_WAIT",
  "CLOSE",
  "CLOSE_WAIT",
  "LAST_ACK",
  "LISTEN",
  "CLOSING",
];

/** `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6, a v4-mapped address shown as IPv4). */
function socketAddress(text: string) {
  const [hex = "", portHex = "0"] = text.split(":");
  const port = Number.parseInt(portHex, 16);
  const v4 = hex.length === 8 ? hex : hex.startsWith("0000000000000000FFFF0000") ? hex.slice(24) : undefined;
  if (!v4) return { address: "[v6]", port };
  const bytes = (v4.match(/../g) ?? []).map((byte) => Number.parseInt(byte, 16)).reverse();
  return { address: bytes.join("."), port };
}

type SocketEntry =
  | { family: "tcp" | "udp"; state: string; local: number; remote: number; remoteAddress: string }
  | { family: "unix"; path: string };

/** The sockets of `pid`'s network namespace by inode: /proc/PID/net/{tcp,tcp6,udp,udp6,unix}. */
function socketTable(pid: number): Map<string, SocketEntry> {
  const table = new Map<string, SocketEntry>();
  const rows = (file: string) => {
    try {
      return readFileSync(`/proc/${pid}/net/${file}`, "utf8").trim().split("\n").slice(1);
    } catch {
      return [];
    }
  };
  for (const family of ["tcp", "udp"] as const)
    for (const file of [family, `${family}6`])
      for (const row of rows(file)) {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        const fields = row.trim().split(/\s+/);
        const local = socketAddress(fields[1] ?? "");
        const remote = socketAddress(fields[2] ?? "");
        const state = family === "tcp" ? (tcpStates[Number.parseInt(fields[3] ?? "0", 16)] ?? "?") : "";
        table.set(fields[9] ?? "", {
          family,
          state,
          local: local.port,
          remote: remote.port,
          remoteAddress: remote.address,
        });
      }
  for (const row of rows("unix")) {
    // Num RefCount Protocol Flags Type St Inode Path
    const fields = row.trim().split(/\s+/);
    table.set(fields[6] ?? "", { family: "unix", path: fields[7] ?? "" });
  }
  return table;
}

/**
 * The open descriptors of `pid`, counted by kind: a TCP socket by state, direction and the port
 * on the server's side (`names` gives ports a name), a UNIX socket by path, a pipe, an anonymous
 * inode by type, a file by its directory (`shorten` may abbreviate it); `targets` are the
 * descriptors' targets, as `descriptorTargets` answers.
 */
export function descriptorKinds(
  pid: number,
  targets: string[],
  names: Map<number, string> = new Map(),
  shorten: (path: string) => string = (path) => path,
): Map<string, number> {
  const kinds = new Map<string, number>();
  const count = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const sockets = targets.some((target) => target.startsWith("socket:")) ? socketTable(pid) : new Map();
  const listening = new Set<number>();
  for (const target of targets) {
    const entry = sockets.get(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? "");
    if (entry?.family === "tcp" && entry.state === "LISTEN") listening.add(entry.local);
  }
  const port = (value: number) => `:${names.get(value) ?? value}`;
  for (const target of targets) {
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) {
      const entry = sockets.get(inode);
      if (!entry) count("socket, not in /proc/net (netlink, or closing)");
      else if (entry.family === "unix") count(`unix socket ${entry.path || "(unnamed)"}`);
      else if (entry.family === "udp") count(`udp socket ${port(entry.local)}`);
      else if (entry.state === "LISTEN") count(`tcp listening ${port(entry.local)}`);
      else if (listening.has(entry.local)) count(`tcp ${entry.state} in to ${port(entry.local)}`);
      else count(`tcp ${entry.state} out to ${entry.remoteAddress}${port(entry.remote)}`);
    } else if (target.startsWith("pipe:")) count("pipe");
    else if (target.startsWith("anon_inode:")) count(target.replace(/^anon_inode:/, "anon_inode "));
    else if (target.startsWith("/")) {
      const file = target.replace(/ \(deleted\)$/, "");
      count(`file ${path.dirname(shorten(file))}/${file === target ? "" : " (deleted)"}`);
    } else count(target.replace(/\[\d+\]$/, ""));
  }
  return kinds;
}

/** What a load of heartbeat calls measured: answers per second, latency percentiles (ms), and counts. */
export type Load = { rps: number; p50: number; p99: number; failed: number; answered: number };

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

/**
 * The ed25519 key of a simulated agent, parsed by ssh2 once (as the agent parses its key) and as
 * the API takes it (PEM SPKI).
 */
export function simulatedKey() {
  const pair = ed25519KeyPair();
  const blob = Buffer.from(pair.public.split(" ")[1] ?? "", "base64");
  const x = blob.subarray(blob.length - 32).toString("base64url");
  const pem = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })
    .export({ type: "spki", format: "pem" })
    .toString();
  return { privateKey: parseSshKey(pair.private), pem };
}

/** A device a benchmark holds tunnels of without an agent process: its uid, device token and private key. */
export type SimulatedDevice = { uid: string; token: string; privateKey: ParsedKey };

/** A tunnel upgrade the server did not take: its status, and the Retry-After of a 429. */
export class TunnelRefused extends Error {
  constructor(
    readonly status: number,
    readonly retryAfter: string | undefined,
  ) {
    super(`tunnel refused: ${status}`);
  }
}

/** A simulated device registered through the API, with its name and the tunnel a benchmark opened for it. */
export type Simulated = SimulatedDevice & { hostname: string; client?: Client };

/** Registers and accepts `count` devices, each with its own key. */
export async function simulatedDevices(owner: Api, tenantId: string, count: number): Promise<Simulated[]> {
  const devices: Simulated[] = [];
  await inParallel(
    Array.from({ length: count }, (_, index) => index),
    32,
    async (index) => {
      const key = simulatedKey();
      const mac = [0x02, 0x42, (index >> 16) & 255, (index >> 8) & 255, index & 255, 0x01]
        .map((byte) => byte.toString(16).padStart(2, "0"))
        .join(":");
      const body = agentBody(tenantId, { hostname: `sim-${index}`, identity: { mac }, public_key: key.pem });
      const answer = await api<{ uid: string; token: string }>(
        "POST",
        "/api/devices/auth",
        { baseUrl: owner.baseUrl },
        body,
      );
      devices.push({ uid: answer.uid, hostname: `sim-${index}`, token: answer.token, privateKey: key.privateKey });
    },
  );
  await inParallel(devices, 8, async (device) => {
    await api("PATCH", `/api/devices/${device.uid}/accept`, owner);
  });
  return devices;
}

/**
 * One idle tunnel as the agent holds it: WebSocket, SSH as the device, `tcpip-forward`; answers
 * the SSH client once the forwarding is granted (its "close" is the tunnel's end).
 */
export function openTunnel(baseUrl: string, device: SimulatedDevice, readyTimeout = 120_000): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/agent/tunnel`, {
      headers: { authorization: `Bearer ${device.token}` },
      perMessageDeflate: false,
      handshakeTimeout: readyTimeout,
    });
    const fail = (error: Error) => {
      socket.terminate();
      reject(error);
    };
    socket.once("unexpected-response", (_request, response) =>
      fail(new TunnelRefused(response.statusCode ?? 0, response.headers["retry-after"])),
    );
    socket.once("error", fail);
    socket.once("open", () => {
      const client = new ssh2.Client();
      // ssh2 may report more than one error for a connection; any ends the tunnel.
      client.on("error", fail);
      client.once("close", () => fail(new Error("the tunnel closed before it was ready")));
      client.once("ready", () => client.forwardIn("device", 22, (error) => (error ? fail(error) : resolve(client))));
      try {
        client.connect({
          sock: createWebSocketStream(socket),
          username: device.uid,
          authHandler: [publicKeyAuth(device.uid, device.privateKey)],
          readyTimeout,
        });
      } catch (error) {
        fail(error as Error);
      }
    });
  });
}

/** Fails unless ssh2's native crypto binding loaded: on its JavaScript fallback SSH figures mean nothing. */
export function requireNativeSshCrypto() {
  const cryptoModule = createRequire(path.join(root, "package.json"))("ssh2/lib/protocol/crypto") as {
    bindingAvailable: boolean;
  };
  if (!cryptoModule.bindingAvailable) throw new Error("ssh2's native crypto binding did not load");
}
