import { readFileSync } from "node:fs";
import { type Socket, connect as tcpConnect } from "node:net";
import { ensureBuild } from "../lib/build/ensure-build";
import { type RunningServer, startServer } from "../testing/server";
import { type Api, agentFleet, connect, openFds, percentile, rssKiB, settle, withTimeout } from "./kit";

type Figures = { ms: number[]; errors: Map<string, number> };

const emptyFigures = (): Figures => ({ ms: [], errors: new Map() });

async function timed(figures: Figures, work: () => Promise<void>) {
  const started = performance.now();
  try {
    await work();
    figures.ms.push(performance.now() - started);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 100);
    figures.errors.set(reason, (figures.errors.get(reason) ?? 0) + 1);
  }
}

/** `count` SSH logins one after another through the gateway, each running `true` on the device. */
async function sshLogins(fleet: Awaited<ReturnType<typeof agentFleet>>, count: number): Promise<Figures> {
  const figures = emptyFigures();
  for (let index = 0; index < count; index++) {
    await timed(figures, async () => {
      const client = await withTimeout(connect({ ...fleet.login(0), readyTimeout: 30_000 }), 30_000, "login");
      try {
        const code = await withTimeout(
          new Promise<number | undefined>((resolve, reject) =>
            client.exec("true", (error, channel) => {
              if (error) return reject(error);
              let status: number | undefined;
              channel.on("exit", (code: number | null) => {
                status = code ?? undefined;
              });
              channel.once("close", () => resolve(status));
              channel.resume();
            }),
          ),
          30_000,
          "command",
        );
        if (code !== 0) throw new Error(`true exited with ${code}`);
      } finally {
        client.end();
      }
    });
  }
  return figures;
}

/** `count` API calls one after another: a login (POST /api/login), then the device list with its token, in turn. */
async function apiCalls(owner: Api, credentials: { username: string; password: string }, count: number) {
  const figures = emptyFigures();
  const call = async (path: string, init: RequestInit) => {
    const response = await fetch(`${owner.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  };
  for (let index = 0; index < count; index++) {
    await timed(figures, () =>
      index % 2 === 0
        ? call("/api/login", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(credentials),
          })
        : call("/api/devices?per_page=10", { headers: { authorization: `Bearer ${owner.token}` } }),
    );
  }
  return figures;
}

type AttackKind = "ssh-silent" | "ssh-version" | "http-headers" | "http-body";

/**
 * Connections that never finish: SSH clients that send nothing or only their version line, HTTP
 * clients that send their headers, or their body, a byte at a time. Each one closed by the
 * server is opened again at once, so `count` stay open; how long the server let each live is
 * kept per kind.
 */
class Attack {
  private readonly sockets = new Map<Socket, AttackKind>();
  private isRunning = true;
  readonly lifetimes = new Map<AttackKind, number[]>();
  refused = 0;
  private readonly trickle: NodeJS.Timeout;

  constructor(
    private readonly server: RunningServer,
    private readonly sources: string[],
    trickleMs: number,
  ) {
    // One byte to every trickling connection per tick: the pace a slowloris keeps.
    this.trickle = setInterval(() => {
      for (const [socket, kind] of this.sockets) {
        if (kind === "http-headers" || kind === "http-body") socket.write(kind === "http-body" ? " " : "a");
      }
    }, trickleMs);
  }

  get open() {
    return this.sockets.size;
  }

  private opening(kind: AttackKind, index: number): Promise<void> {
    const isSsh = kind.startsWith("ssh");
    const socket = tcpConnect({
      host: "127.0.0.1",
      port: isSsh ? this.server.sshPort : this.server.port,
      localAddress: this.sources[index % this.sources.length],
    });
    const openedAt = Date.now();
    socket.setNoDelay(true);
    socket.on("data", () => {});
    socket.on("error", () => {});
    return new Promise((resolve) => {
      socket.once("connect", () => {
        this.sockets.set(socket, kind);
        if (kind === "ssh-version") socket.write("SSH-2.0-OpenSSH_9.6\r\n");
        if (kind === "http-headers") socket.write("GET /api/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ");
        if (kind === "http-body")
          socket.write(
            "POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
          );
        resolve();
      });
      socket.once("close", () => {
        if (this.sockets.delete(socket)) {
          const lifetimes = this.lifetimes.get(kind) ?? [];
          lifetimes.push(Date.now() - openedAt);
          this.lifetimes.set(kind, lifetimes);
        } else {
          this.refused += 1;
        }
        resolve();
        if (this.isRunning) setTimeout(() => void this.opening(kind, index), 100);
      });
    });
  }

  /** Opens the connections, 200 at a time. */
  async start(plan: [AttackKind, number][]) {
    const all = plan.flatMap(([kind, count]) => Array.from({ length: count }, () => kind));
    for (let first = 0; first < all.length; first += 200) {
      await Promise.all(all.slice(first, first + 200).map((kind, offset) => this.opening(kind, first + offset)));
    }
  }

  stop() {
    this.isRunning = false;
    clearInterval(this.trickle);
    for (const socket of this.sockets.keys()) socket.destroy();
  }
}

function fdLimit(): number {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("Max open files"));
  return Number(line?.split(/\s+/)[3]);
}

const summary = (figures: Figures) => {
  const errors = [...figures.errors].map(([reason, count]) => `${count}x ${reason}`).join("; ");
  const count = figures.ms.length + [...figures.errors.values()].reduce((sum, value) => sum + value, 0);
  return `p50 ${percentile(figures.ms, 0.5).toFixed(1)} ms, p99 ${percentile(figures.ms, 0.99).toFixed(1)} ms, errors ${count - figures.ms.length} of ${count}${errors ? ` (${errors})` : ""}`;
};

/**
 * `npm run bench -- preauth [--ssh 5000] [--http 2000] [--ssh-samples 50] [--api-samples 200]
 * [--trickle-ms 1000] [--sources 50]`: real SSH logins (through the gateway into a real agent)
 * and API calls while connections that never finish hold the SSH gateway and the HTTP port,
 * against the same calls on the quiet server in the same run.
 */
export async function preauthBenchmark(args: Map<string, string>) {
  const sshCount = Number(args.get("ssh") ?? 5_000);
  const httpCount = Number(args.get("http") ?? 2_000);
  const sshSamples = Number(args.get("ssh-samples") ?? 50);
  const apiSamples = Number(args.get("api-samples") ?? 200);
  const trickleMs = Number(args.get("trickle-ms") ?? 1_000);
  const sourceCount = Number(args.get("sources") ?? 50);
  // Every attacking connection is a descriptor here and one in the server (which inherits the limit).
  const needed = sshCount + httpCount + 1_000;
  if (fdLimit() < needed)
    throw new Error(`raise the open-files limit to at least ${needed} first: ulimit -n ${needed}`);
  ensureBuild();

  const server = await startServer({ LOG_LEVEL: "warn" });
  const fleet = await agentFleet(server, 1);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  // The attack comes from other loopback addresses than the real clients (127.0.0.1).
  const sources = Array.from({ length: sourceCount }, (_, index) => `127.0.2.${index + 1}`);
  const attack = new Attack(server, sources, trickleMs);
  try {
    const owner = fleet.owner;
    const credentials = { username: fleet.seeded.owner.username, password: fleet.seeded.owner.password };
    const pid = server.process.pid ?? 0;
    const quietMemory = rssKiB(pid);
    const quietSsh = await sshLogins(fleet, sshSamples);
    const quietApi = await apiCalls(owner, credentials, apiSamples);

    const openingStarted = Date.now();
    await attack.start([
      ["ssh-silent", Math.ceil(sshCount / 2)],
      ["ssh-version", Math.floor(sshCount / 2)],
      ["http-headers", Math.ceil(httpCount / 2)],
      ["http-body", Math.floor(httpCount / 2)],
    ]);
    const openingSeconds = (Date.now() - openingStarted) / 1000;
    await settle(5_000);
    const held = [attack.open];
    const attackedSsh = await sshLogins(fleet, sshSamples);
    held.push(attack.open);
    const attackedApi = await apiCalls(owner, credentials, apiSamples);
    held.push(attack.open);
    const attackedMemory = rssKiB(pid);
    const fds = openFds(pid);
    const lifetimes = [...attack.lifetimes].map(
      ([kind, values]) =>
        `${kind} ${values.length} (median ${(percentile(values, 0.5) / 1000).toFixed(1)} s, max ${(Math.max(...values) / 1000).toFixed(1)} s)`,
    );

    print(
      `preauth: ${sshCount} SSH connections that never log in (half silent, half after the version line), ${httpCount} HTTP clients trickling a byte every ${trickleMs} ms (half headers, half a body), from ${sourceCount} addresses; ${sshSamples} SSH logins and ${apiSamples} API calls (login, device list) in turn`,
    );
    print(`attack opened in ${openingSeconds.toFixed(1)} s; held open during the measurement: ${held.join(", ")}`);
    print(`SSH login + command, quiet:        ${summary(quietSsh)}`);
    print(`SSH login + command, under attack: ${summary(attackedSsh)}`);
    print(`API call, quiet:                   ${summary(quietApi)}`);
    print(`API call, under attack:            ${summary(attackedApi)}`);
    print(
      `server: RSS ${(quietMemory / 1024).toFixed(0)} -> ${(attackedMemory / 1024).toFixed(0)} MiB, ${fds} open fds under attack`,
    );
    print(
      `attack connections the server closed: ${lifetimes.join("; ") || "none"}; refused at connect: ${attack.refused}`,
    );
  } finally {
    attack.stop();
    fleet.stop();
    await server.stop();
  }
}
