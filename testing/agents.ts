import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CallOptions, call } from "./client";
import { root } from "./server";
import { waitFor } from "./wait";

/**
 * Agents: their HTTP call made by the test itself (`registerAgent`...), or the real agent
 * (`agent/main.ts`) as a process (`spawnAgent`, `startAgent`).
 */

/** One RSA key per test file: generating them is slow, and agents differ by hostname and MAC anyway. */
export const devicePublicKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .publicKey.export({ type: "spki", format: "pem" })
  .toString();

let counter = 0;

/** A MAC address no other call in this process returns. */
export function uniqueMac(): string {
  counter += 1;
  const bytes = [
    0x02,
    process.pid & 255,
    (counter >> 16) & 255,
    (counter >> 8) & 255,
    counter & 255,
    Math.floor(Math.random() * 256),
  ];
  return bytes.map((byte) => byte.toString(16).padStart(2, "0")).join(":");
}

export type AgentBody = {
  info: { id: string; pretty_name: string; version: string; arch: string; platform: string };
  sessions: string[];
  hostname: string;
  identity: { mac: string };
  public_key: string;
  tenant_id: string;
};

export function agentBody(tenantId: string, overrides: Partial<AgentBody> = {}): AgentBody {
  return {
    info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "0.1.0", arch: "x86_64", platform: "native" },
    sessions: [],
    hostname: `host-${uniqueMac().replaceAll(":", "")}`,
    identity: { mac: uniqueMac() },
    public_key: devicePublicKey,
    tenant_id: tenantId,
    ...overrides,
  };
}

/** The agent's call: registers the device on the first one, a heartbeat on every one. */
export function authDevice(body: unknown, options: CallOptions = {}) {
  return call("POST", "/api/devices/auth", {
    ...options,
    body,
  });
}

export type RegisteredAgent = { uid: string; token: string; name: string; namespace: string };

/** A device of the namespace, registered (or called in) as its agent does, with its device token. */
export async function registerAgent(
  tenantId: string,
  overrides: Partial<AgentBody> = {},
  options: CallOptions = {},
): Promise<RegisteredAgent> {
  const response = await authDevice(agentBody(tenantId, overrides), options);
  if (response.status !== 200) throw new Error(`device auth failed: ${response.status} ${response.text}`);
  return response.body as RegisteredAgent;
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

/** Waits for the agent's device to register, then accepts it; answers its uid. */
export async function acceptAgentDevice(hostname: string, options: CallOptions) {
  let uid = "";
  await waitFor(`device ${hostname} to register`, async () => {
    const pending = await call("GET", "/api/devices?status=pending&per_page=100", options);
    uid = (pending.body as { uid: string; name: string }[]).find((device) => device.name === hostname)?.uid ?? "";
    return uid !== "";
  });
  const accepted = await call("PATCH", `/api/devices/${uid}/accept`, options);
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  return uid;
}
