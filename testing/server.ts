import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { newDataDir } from "./data-dir";
import { inStartSlot } from "./start-slots";

const root = path.resolve(import.meta.dirname, "..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export type RunningServer = {
  url: string;
  port: number;
  /** The SSH gateway's port. */
  sshPort: number;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  /** SIGTERM, then waits for the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

/** How long a server may take to answer its healthcheck once started: only a hung start takes that long. */
const startCapMs = 180_000;

/**
 * Starts the real server (production build) on a free port and waits until /api/healthcheck
 * answers: `node --import tsx server.ts`, as `npm start` runs it, or `npm start` itself with
 * `viaNpm`. The data stay in `dataDir` (PGlite) unless DATABASE_URL is given. Starts wait for a
 * start slot (./start-slots.ts) unless `takeStartSlot` is false, for starts that must happen
 * at the same moment.
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  { viaNpm = false, takeStartSlot = true }: { viaNpm?: boolean; takeStartSlot?: boolean } = {},
): Promise<RunningServer> {
  const dataDir = env.DATA_DIR ?? newDataDir();
  const start = async () => {
    if (env.PORT) return spawnServer(Number(env.PORT), dataDir, env, viaNpm);
    // A port found free can be taken by another socket before the server listens on it (an
    // outgoing connection's ephemeral port, another test's server): then another one is tried.
    for (let attempt = 1; ; attempt++) {
      try {
        return await spawnServer(await freePort(), dataDir, env, viaNpm);
      } catch (error) {
        if (attempt === 3 || !(error instanceof PortTakenError)) throw error;
      }
    }
  };
  return takeStartSlot ? inStartSlot(start) : start();
}

class PortTakenError extends Error {}

async function spawnServer(
  port: number,
  dataDir: string,
  env: Record<string, string | undefined>,
  viaNpm: boolean,
): Promise<RunningServer> {
  const [command, args] = viaNpm ? ["npm", ["start"]] : [process.execPath, ["--import", "tsx", "server.ts"]];
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      // Each test server's gateway listens on a port the system chooses; /info tells which.
      SSH_PORT: "0",
      ...env,
      PORT: String(port),
      DATA_DIR: dataDir,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  // "close" comes after the output streams end, so output() is complete once stop() resolves.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  // Ready when the healthcheck answers, however long a busy machine takes, as long as the process lives.
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  let isUp = false;
  for (const cap = Date.now() + startCapMs; !isUp && isRunning() && Date.now() < cap; ) {
    isUp = await fetch(`${url}/api/healthcheck`, { signal: AbortSignal.timeout(10_000) })
      .then((response) => response.ok)
      .catch(() => false);
    if (!isUp) await sleep(200);
  }
  if (!isUp) {
    const hasHung = isRunning();
    if (hasHung) child.kill("SIGKILL");
    const code = await exited;
    const Failure = !hasHung && output.includes("EADDRINUSE") ? PortTakenError : Error;
    throw new Failure(
      `server ${hasHung ? `did not answer within ${startCapMs / 1000} s` : `exited with ${code}`}:\n${output}`,
    );
  }
  const info = (await (await fetch(`${url}/info`)).json()) as { endpoints: { ssh: string } };
  const sshPort = Number(info.endpoints.ssh.split(":").pop());
  return {
    url,
    port,
    sshPort,
    dataDir,
    process: child,
    output: () => output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { root };
