import { readFileSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { loadavg } from "node:os";
import ssh2, { type Client, type ClientChannel, type Connection } from "ssh2";
import { ensureBuild } from "../lib/build/ensure-build";
import { descriptorLimit } from "../lib/process-health";
import { forwardedSsh } from "../lib/protocol";
import { seedNamespace } from "../testing/seeds/namespaces";
import { type RunningServer, startServer } from "../testing/server";
import {
  type Api,
  addLoginKey,
  api,
  connect,
  cpuSeconds,
  inParallel,
  openFds,
  openTunnel,
  percentile,
  requireNativeSshCrypto,
  rssKiB,
  type Simulated,
  simulatedDevices,
  withTimeout,
} from "./kit";

// The gateway refuses a source's connections past SSH_MAX_UNAUTHENTICATED_PER_SOURCE (32) that
// have not logged in yet: the logins go this many at a time.
const loginConcurrency = 24;
const prompt = "$ ";

/**
 * The device's own SSH server, as the agent runs it behind its tunnel: its host key is the
 * device's registered key (the gateway checks it), it lets in the gateway's key only, and its
 * shell prints a prompt and echoes what it is sent, its exec answers the command and exits 0.
 */
function deviceSshServer(device: Simulated, gatewayKey: ssh2.ParsedKey) {
  const server = new ssh2.Server({ hostKeys: [device.privateKey] }, (connection: Connection) => {
    connection.on("error", () => connection.end());
    connection.on("authentication", (context) => {
      if (context.method !== "publickey" || !context.key.data.equals(gatewayKey.getPublicSSH())) {
        return context.reject(["publickey"]);
      }
      // Without a signature the client only asks whether the key would do.
      if (!context.signature || gatewayKey.verify(context.blob ?? Buffer.alloc(0), context.signature, context.hashAlgo))
        return context.accept();
      context.reject(["publickey"]);
    });
    connection.on("session", (acceptSession) => {
      const session = acceptSession();
      session.on("pty", (accept) => accept?.());
      session.on("window-change", (accept) => accept?.());
      session.on("shell", (accept) => {
        const stream = accept();
        stream.write(prompt);
        stream.on("data", (data: Buffer) => stream.write(data));
      });
      session.on("exec", (accept, _reject, info) => {
        const stream = accept();
        stream.end(`${info.command}\n`);
        stream.exit(0);
      });
    });
  });
  return server;
}

/**
 * Answers the channels the gateway opens through `device`'s tunnel with the device's SSH server.
 * The gateway puts the session's uid in a channel's "connected address" (docs/ssh-path.md) and
 * ssh2's client takes only channels to an address it bound: as the agent does, every address
 * on the forwarded port counts as the bound one.
 */
function answerForwardedChannels(device: Simulated, gatewayKey: ssh2.ParsedKey) {
  const client = device.client;
  if (!client) throw new Error(`${device.hostname} has no tunnel`);
  const internals = client as unknown as { _forwarding: Record<string, number> };
  const suffix = `:${forwardedSsh.port}`;
  internals._forwarding = new Proxy(internals._forwarding, {
    get: (target, key) =>
      typeof key === "string" && key.endsWith(suffix)
        ? target[`${forwardedSsh.address}${suffix}`]
        : Reflect.get(target, key),
  });
  const server = deviceSshServer(device, gatewayKey);
  client.on("tcp connection", (_details, accept) => server.injectSocket(accept() as unknown as Socket));
}

type User = { client: Client; shell: ClientChannel; setupMs: number };

/** One user's session through the gateway: logged in, a shell on a pty, its prompt received. */
async function openSession(login: ssh2.ConnectConfig): Promise<User> {
  const started = performance.now();
  const client = await connect(login);
  try {
    const shell = await withTimeout(
      new Promise<ClientChannel>((resolve, reject) =>
        client.shell({ term: "xterm", cols: 80, rows: 24 }, (error, channel) => {
          if (error) return reject(error);
          channel.once("data", () => resolve(channel));
          channel.once("close", () => reject(new Error("the shell closed before its prompt")));
        }),
      ),
      60_000,
      "shell prompt",
    );
    return { client, shell, setupMs: performance.now() - started };
  } catch (error) {
    client.end();
    throw error;
  }
}

/** Whether the user's shell echoes a line sent to it, within 30 s. */
async function answers(user: User): Promise<boolean> {
  const line = `ping ${Math.random()}`;
  const echoed = new Promise<void>((resolve) => {
    let received = "";
    const listen = (data: Buffer) => {
      received += data.toString();
      if (!received.includes(line)) return;
      user.shell.off("data", listen);
      resolve();
    };
    user.shell.on("data", listen);
  });
  user.shell.write(`${line}\n`);
  return withTimeout(echoed, 30_000, "echo").then(
    () => true,
    () => false,
  );
}

/** Sample times of `count` sequential GET requests to `path`. */
async function apiLatency(owner: Api, path: string, count: number) {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await api("GET", path, owner);
    samples.push(performance.now() - started);
  }
  return samples;
}

const figure = (samples: number[]) =>
  `p50 ${percentile(samples, 0.5).toFixed(1)} / p99 ${percentile(samples, 0.99).toFixed(1)} ms`;

/** The API's latency for the calls the console makes most: the sessions and the devices. */
async function apiFigures(owner: Api, requests: number) {
  const sessions = await apiLatency(owner, "/api/sessions?per_page=10", requests);
  const devices = await apiLatency(owner, "/api/devices?per_page=10", requests);
  return { sessions, devices };
}

/** Peak server figures, sampled while the sessions open. */
class ServerPeak {
  rssKiB = 0;
  fds = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 500);
  }
  sample() {
    this.rssKiB = Math.max(this.rssKiB, rssKiB(this.pid));
    this.fds = Math.max(this.fds, openFds(this.pid));
  }
  stop() {
    this.sample();
    clearInterval(this.timer);
  }
}

/**
 * `npm run bench -- sessions [--devices 1000] [--per-device 5] [--requests 200]`: that many
 * sessions open at once through the gateway, to simulated devices whose tunnels this process
 * holds (each answering with a minimal SSH server): how many were established, their setup time
 * (TCP connect to the shell's prompt), the server's RSS and descriptors at the peak, and the
 * API's latency while they are all open against the same calls with none, in the same run.
 */
export async function sessionsBenchmark(args: Map<string, string>) {
  const deviceCount = Number(args.get("devices") ?? 1_000);
  const perDevice = Number(args.get("per-device") ?? 5);
  const requests = Number(args.get("requests") ?? 200);
  const sessionCount = deviceCount * perDevice;
  requireNativeSshCrypto();
  // This process and the server each hold a descriptor per tunnel and per session.
  const needed = sessionCount + deviceCount + 1_000;
  const limit = descriptorLimit() ?? 0;
  if (limit < needed)
    throw new Error(`the descriptor limit is ${limit}, ${needed} are needed: run \`ulimit -n 65536\` first`);
  ensureBuild();

  const server: RunningServer = await startServer({ DEVICE_REGISTRATIONS_PER_MINUTE: "1000000", LOG_LEVEL: "warn" });
  const users: User[] = [];
  const devices: Simulated[] = [];
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const seeded = await seedNamespace(undefined, { baseUrl: server.url });
    const owner: Api = { baseUrl: server.url, token: seeded.owner.tenantToken };
    const loginKey = await addLoginKey(owner);
    const gatewayKey = ssh2.utils.parseKey(readFileSync(`${server.dataDir}/ssh_host_ed25519_key`));
    if (gatewayKey instanceof Error) throw gatewayKey;
    const serverPid = server.process.pid ?? 0;

    devices.push(...(await simulatedDevices(owner, seeded.tenantId, deviceCount)));
    await inParallel(devices, 32, async (device) => {
      device.client = await openTunnel(server.url, device);
    });
    for (const device of devices) answerForwardedChannels(device, gatewayKey);
    print(
      `sessions benchmark: ${deviceCount} simulated devices (tunnels held by this process), ${perDevice} sessions each,` +
        ` ${requests} sequential API requests per figure; the server, PGlite and this process share the machine's cores`,
    );
    const idle = await apiFigures(owner, requests);
    const idleServer = { rssKiB: rssKiB(serverPid), fds: openFds(serverPid) };

    const logins = Array.from({ length: sessionCount }, (_, index) => index);
    const failures = new Map<string, number>();
    const peak = new ServerPeak(serverPid);
    const cpuBefore = { server: cpuSeconds(serverPid), bench: cpuSeconds(process.pid) };
    const started = performance.now();
    await inParallel(logins, loginConcurrency, async (index) => {
      const device = devices[index % deviceCount] as Simulated;
      try {
        users.push(
          await openSession({
            host: "127.0.0.1",
            port: server.sshPort,
            username: `bench@${seeded.name}.${device.hostname}`,
            privateKey: loginKey,
          }),
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      }
    });
    const setupSeconds = (performance.now() - started) / 1000;
    const cpu = {
      server: cpuSeconds(serverPid) - cpuBefore.server,
      bench: cpuSeconds(process.pid) - cpuBefore.bench,
    };
    const busy = await apiFigures(owner, requests);
    let answered = 0;
    await inParallel(users, 100, async (user) => {
      if (await answers(user)) answered += 1;
    });
    peak.stop();

    const setup = users.map((user) => user.setupMs);
    const mb = (kib: number) => `${(kib / 1024).toFixed(0)} MB`;
    print(
      `established: ${users.length} of ${sessionCount} in ${setupSeconds.toFixed(1)} s (${loginConcurrency} logins at a time);` +
        ` setup (connect to the shell's prompt) p50 ${percentile(setup, 0.5).toFixed(0)} / p99 ${percentile(setup, 0.99).toFixed(0)} ms`,
    );
    print(
      `  CPU while they opened: server ${cpu.server.toFixed(0)} s, this process (users and devices) ${cpu.bench.toFixed(0)} s` +
        ` = ${((1000 * cpu.server) / sessionCount).toFixed(1)} and ${((1000 * cpu.bench) / sessionCount).toFixed(1)} ms per session`,
    );
    for (const [reason, count] of failures) print(`  failed ${count}: ${reason}`);
    print(`answering: ${answered} of ${users.length} shells echoed a line while all were open`);
    print(
      `server: RSS ${mb(idleServer.rssKiB)} with the tunnels alone, ${mb(peak.rssKiB)} at the peak;` +
        ` descriptors ${idleServer.fds} -> ${peak.fds}`,
    );
    print(
      `GET /api/sessions: no sessions ${figure(idle.sessions)}, ${users.length} open ${figure(busy.sessions)}` +
        ` = ${(percentile(busy.sessions, 0.99) / percentile(idle.sessions, 0.99)).toFixed(2)}x at p99`,
    );
    print(
      `GET /api/devices:  no sessions ${figure(idle.devices)}, ${users.length} open ${figure(busy.devices)}` +
        ` = ${(percentile(busy.devices, 0.99) / percentile(idle.devices, 0.99)).toFixed(2)}x at p99`,
    );
    print(
      `load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    for (const user of users) user.client.end();
    for (const device of devices) device.client?.end();
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}
