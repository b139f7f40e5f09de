import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inject } from "vitest";
import WebSocket from "ws";
import { acceptAgentDevice, type RunningAgent, startAgent } from "./agents";
import { call } from "./client";
import { createAccount } from "./local-accounts";
import { runToExit } from "./processes";
import { type SeededNamespace, seedNamespace } from "./seeds/namespaces";

export { createAccount };

/**
 * The SSH path end to end: OpenSSH clients run against the gateway, local accounts to log in as
 * (this machine is the device), the browser terminal's WebSocket.
 */

export const scratchDir = (prefix = "das-ssh-") => mkdtempSync(path.join(tmpdir(), prefix));

/** The gateway's port, as `GET /info` tells it. */
export async function sshPort(baseUrl?: string): Promise<number> {
  const info = await call("GET", "/info", { baseUrl });
  return Number(String(info.body.endpoints.ssh).split(":").pop());
}

export const isRoot = process.getuid?.() === 0;

/** A new ed25519 key pair made by ssh-keygen: the private key's file and the public line. */
export function keyPair(dir: string) {
  const file = path.join(dir, `id_${randomBytes(4).toString("hex")}`);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", file]);
  return { file, line: readFileSync(`${file}.pub`, "utf8").trim() };
}

export const clientOptions = [
  "-o",
  "StrictHostKeyChecking=no",
  "-o",
  "UserKnownHostsFile=/dev/null",
  "-o",
  "LogLevel=ERROR",
  "-o",
  "ConnectTimeout=20",
];

/** Runs an OpenSSH tool (ssh, scp, sftp, or sshpass wrapping one) to completion, with a time limit. */
export const run = (command: string, args: string[], input = "", seconds = 120) =>
  runToExit(command, args, { input, seconds });

/** `ssh` to the gateway on `port`, the password typed by sshpass. */
export const sshWithPassword = (port: number, password: string, args: string[]) =>
  run("sshpass", ["-p", password, "ssh", "-p", String(port), ...clientOptions, ...args]);

export type TestDevice = {
  namespace: SeededNamespace;
  account: ReturnType<typeof createAccount>;
  agent: RunningAgent;
  deviceUid: string;
  /** `ACCOUNT@NAMESPACE.DEVICE@127.0.0.1`, as people type it. */
  target: string;
  stop: () => Promise<void>;
};

/**
 * A new namespace with this machine as an accepted device (the real agent, its tunnel up) and a
 * new local account to log in as; root only.
 */
export async function startDevice(): Promise<TestDevice> {
  const namespace = await seedNamespace();
  const account = createAccount();
  const agent = startAgent(inject("baseUrl"), namespace.tenantId);
  const stop = async () => {
    await agent.stop();
    account.remove();
  };
  try {
    const deviceUid = await acceptAgentDevice(agent.hostname, { token: namespace.owner.tenantToken });
    await agent.tunnelUp();
    const target = `${account.name}@${namespace.name}.${agent.hostname}@127.0.0.1`;
    return { namespace, account, agent, deviceUid, target, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `ssh` to the gateway on `port`. */
export const sshTo = (port: number, args: string[], input = "") =>
  run("ssh", ["-p", String(port), ...clientOptions, ...args], input);

/** Client options to log in with this key file only, never asking for anything. */
export const keyOnly = (file: string) => ["-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-i", file];

export type Terminal = {
  socket: WebSocket;
  /** Everything received, binary and text messages alike. */
  output: () => string;
  /** How many messages came as text and as binary. */
  received: { text: number; binary: number };
  closed: Promise<void>;
};

/**
 * Opens the browser terminal as a page of `origin` would; rejects with the HTTP status when
 * refused. It offers the `binary` subprotocol unless told other `protocols` (none: ShellHub's UI).
 */
export function openTerminal(
  token: string,
  origin: string,
  size = { cols: 80, rows: 24 },
  baseUrl: string = inject("baseUrl"),
  protocols: string[] = ["binary"],
): Promise<Terminal> {
  const url = `${baseUrl.replace(/^http/, "ws")}/ws/ssh?token=${encodeURIComponent(token)}&cols=${size.cols}&rows=${size.rows}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers: { origin } });
    let output = "";
    const received = { text: 0, binary: 0 };
    socket.on("message", (data: Buffer, isBinary) => {
      received[isBinary ? "binary" : "text"] += 1;
      output += data.toString("utf8");
    });
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.once("open", () => resolve({ socket, output: () => output, received, closed }));
    socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.once("error", reject);
  });
}
