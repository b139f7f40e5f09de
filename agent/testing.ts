import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import ssh2 from "ssh2";

/**
 * An ed25519 key pair in OpenSSH format for tests and benchmarks. ssh2's generator now and then
 * (about 1 in 300) writes a private key its own parser rejects: such keys are thrown away.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519");
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

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
    cwd: path.resolve(import.meta.dirname, ".."),
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
