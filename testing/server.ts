import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

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

export const newDataDir = () => mkdtempSync(path.join(tmpdir(), "das-test-"));

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

/**
 * Starts the real server (production build) on a free port and waits until /api/healthcheck
 * answers: `node --import tsx server.ts`, as `npm start` runs it, or `npm start` itself with
 * `viaNpm`. The data stay in `dataDir` (PGlite) unless DATABASE_URL is given.
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  { viaNpm = false }: { viaNpm?: boolean } = {},
): Promise<RunningServer> {
  const port = Number(env.PORT ?? (await freePort()));
  const dataDir = env.DATA_DIR ?? newDataDir();
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
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    const isUp = await fetch(`${url}/api/healthcheck`)
      .then((response) => response.ok)
      .catch(() => false);
    if (isUp) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
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

export { root };
