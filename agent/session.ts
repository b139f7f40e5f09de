import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { IPty } from "node-pty";
import type { ServerChannel, Session } from "ssh2";
import { log } from "../lib/log";
import type { LocalAccount } from "./accounts";
import {
  isPassedEnv,
  type LoginContext,
  loadPty,
  sftpServerPath,
  shellCommand,
  startOnPty,
  startPiped,
  type Terminal,
} from "./processes";

type Exit = { code: number } | { signal: string };

/** A started shell, command or subsystem as its session sees it. */
type Running = { resize(cols: number, rows: number): void; signal(name: string): void; hangUp(): void };

/** "SIGTERM" -> "TERM", as SSH names signals; a signal number too. */
function sshSignalName(signal: string | number): string {
  const name =
    typeof signal === "number" ? Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] : signal;
  return (name ?? "KILL").replace(/^SIG/, "");
}

/**
 * Ends the channel with the exit status or signal, after everything written before has gone
 * out: a zero-length write completes only once the writes queued before it have, on stderr and
 * then on stdout; then `exit-status`/`exit-signal`, then EOF and close.
 */
function finish(channel: ServerChannel, exit: Exit) {
  channel.stderr.write(Buffer.alloc(0), () =>
    channel.write(Buffer.alloc(0), () => {
      if ("code" in exit) channel.exit(exit.code);
      else channel.exit(exit.signal, false, "");
      channel.end();
    }),
  );
}

function runOnPty(channel: ServerChannel, pty: IPty): Running {
  let hasExited = false;
  pty.onData((data) => {
    // With `encoding: null` node-pty hands over Buffers; the typing says string.
    if (!channel.write(data as unknown as Buffer)) {
      pty.pause();
      channel.once("drain", () => pty.resume());
    }
  });
  channel.on("data", (data: Buffer) => pty.write(data));
  pty.onExit(({ exitCode, signal }) => {
    hasExited = true;
    finish(channel, signal ? { signal: sshSignalName(signal) } : { code: exitCode });
  });
  return {
    resize: (cols, rows) => {
      if (!hasExited) pty.resize(Math.max(1, cols), Math.max(1, rows));
    },
    signal: (name) => {
      if (!hasExited) pty.kill(`SIG${name}`);
    },
    hangUp: () => {
      if (!hasExited) pty.kill("SIGHUP");
    },
  };
}

function runPiped(channel: ServerChannel, child: ChildProcess): Running {
  let hasExited = false;
  child.stdout?.pipe(channel, { end: false });
  child.stderr?.pipe(channel.stderr, { end: false });
  if (child.stdin) {
    // The program may exit without reading its input: EPIPE is not the session's failure.
    child.stdin.on("error", () => {});
    channel.pipe(child.stdin);
  }
  child.once("error", (error) => {
    if (hasExited) return;
    hasExited = true;
    channel.stderr.write(`${error.message}\n`);
    finish(channel, { code: 127 });
  });
  child.once("close", (code, signal) => {
    if (hasExited) return;
    hasExited = true;
    finish(channel, code !== null ? { code } : { signal: sshSignalName(signal ?? "SIGKILL") });
  });
  const kill = (signal: NodeJS.Signals) => {
    if (hasExited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  return { resize: () => {}, signal: (name) => kill(`SIG${name}` as NodeJS.Signals), hangUp: () => kill("SIGHUP") };
}

/**
 * The device's SSH packets travel inside the tunnel's channel, whose packets carry at most 32 KiB:
 * a full 32 KiB inner packet plus its header and MAC would take two tunnel packets. Inner data
 * packets a little smaller each fit in one.
 */
export function fitTunnelPackets(channel: ServerChannel): ServerChannel {
  const outgoing = (channel as unknown as { outgoing: { packetSize: number } }).outgoing;
  outgoing.packetSize = Math.min(outgoing.packetSize, 32 * 1024 - 128);
  return channel;
}

/** Signals a client may send (RFC 4254 6.9). */
const sshSignals = new Set([
  "ABRT",
  "ALRM",
  "FPE",
  "HUP",
  "ILL",
  "INT",
  "KILL",
  "PIPE",
  "QUIT",
  "SEGV",
  "TERM",
  "USR1",
  "USR2",
]);

/**
 * One `session` channel of the device's SSH server: `pty-req`, `env` (locale only),
 * `window-change` and `signal`, then one of shell, exec or the sftp subsystem, run as `account`.
 */
export function serveSession(session: Session, account: LocalAccount) {
  let terminal: Terminal | undefined;
  const env: Record<string, string> = {};
  let running: Running | undefined;
  const context = (): LoginContext => ({ account, terminal, env });

  session.on("pty", (accept, _reject, info) => {
    terminal = { term: (info as { term?: string }).term || "xterm", cols: info.cols, rows: info.rows };
    accept?.();
  });
  session.on("window-change", (accept, _reject, info) => {
    if (terminal) Object.assign(terminal, { cols: info.cols, rows: info.rows });
    running?.resize(info.cols, info.rows);
    accept?.();
  });
  session.on("env", (accept, reject, info) => {
    if (!isPassedEnv(info.key)) return reject?.();
    env[info.key] = info.val;
    accept?.();
  });
  session.on("signal", (accept, reject, info) => {
    if (!running || !sshSignals.has(info.name)) return reject?.();
    running.signal(info.name);
    accept?.();
  });

  const start = (accept: () => ServerChannel, reject: () => void, command: string | undefined, what: string) => {
    if (running) return reject();
    const channel = hangUpOnClose(fitTunnelPackets(accept()));
    const [file, args] = shellCommand(account, command);
    try {
      const current = context();
      const pty = current.terminal ? loadPty() : undefined;
      running =
        pty && current.terminal
          ? runOnPty(channel, startOnPty(pty, { ...current, terminal: current.terminal }, file, args))
          : runPiped(channel, startPiped(current, file, args));
    } catch (error) {
      log.warn("starting a process failed", { user: account.name, what, error: (error as Error).message });
      channel.stderr.write(`${(error as Error).message}\n`);
      finish(channel, { code: 127 });
    }
  };
  session.on("shell", (accept, reject) => start(accept, reject, undefined, "shell"));
  session.on("exec", (accept, reject, info) => start(accept, reject, info.command, "exec"));
  session.on("subsystem", (accept, reject, info) => {
    const server = sftpServerPath();
    if (info.name !== "sftp" || !server || running) return reject();
    running = runPiped(hangUpOnClose(fitTunnelPackets(accept())), startPiped({ account, env }, server, []));
  });
  session.on("x11", (_accept, reject) => reject?.());
  session.on("auth-agent", (_accept, reject) => reject?.());
  // A connection that dies closes the accepted channel but not the session object.
  const hangUpOnClose = (channel: ServerChannel) => channel.once("close", () => running?.hangUp());
  session.on("close", () => running?.hangUp());
}
