import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { waitFor } from "./wait";

// The agent as a process, apart from the API helpers (which need vitest): the browser tests use it too.

const root = path.resolve(import.meta.dirname, "..");

/**
 * The real agent (`agent/main.ts`) as a process of the project's, for tests and benchmarks: its
 * data in `dataDir`, `env` added to this process's environment, stdout and stderr collected.
 */
export function spawnAgent(
  options: { server: string; tenantId: string; hostname: string; dataDir: string },
  env: Record<string, string> = {},
): { child: ChildProcess; output: () => string } {
  const args = ["--import", "tsx", "agent/main.ts", "--server", options.server, "--tenant-id", options.tenantId];
  const child = spawn(process.execPath, [...args, "--hostname", options.hostname], {
    cwd: root,
    env: { ...process.env, AGENT_DATA_DIR: options.dataDir, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { child, output: () => output };
}

export type RunningAgent = {
  hostname: string;
  dataDir: string;
  output: () => string;
  /** Resolves once the agent reports a tunnel (again) after `since` characters of output. */
  tunnelUp: (since?: number) => Promise<void>;
  stop: () => Promise<void>;
};

/** The real agent (`npm run agent`), as root, serving this machine's accounts as a device. */
export function startAgent(baseUrl: string, tenantId: string): RunningAgent {
  const hostname = `dev-${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-"));
  const { child, output } = spawnAgent({ server: baseUrl, tenantId, hostname, dataDir }, { HEARTBEAT_INTERVAL: "1" });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return {
    hostname,
    dataDir,
    output,
    tunnelUp: (since = 0) =>
      waitFor(
        () => `the agent's tunnel:\n${output()}`,
        () => output().slice(since).includes('"message":"tunnel connected"'),
      ),
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
