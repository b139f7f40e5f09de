import type {
  AcceptConnection,
  Channel,
  Client,
  ClientChannel,
  Connection,
  PseudoTtyInfo,
  RejectConnection,
  ServerChannel,
  Session,
} from "ssh2";
import { terminalGreeting } from "../text";
import type { LiveSession } from "./live-session";

/** Only the locale reaches the device's environment. */
export const isAllowedEnv = (name: string) => name === "LANG" || name.startsWith("LC_");

/** Terminal size and type as the user's client requested them. */
export type Terminal = { term: string; cols: number; rows: number; width: number; height: number };

/**
 * Relays the device channel to the user's: output with back-pressure; the device's exit status
 * or signal before the user's channel closes, which happens only once the device's channel has
 * closed (its EOF alone ends nothing: data and the exit status may still follow).
 */
export function bridge(user: ServerChannel, device: ClientChannel, session: LiveSession) {
  let exit: { code: number } | { signal: string; isCoreDumped: boolean; description: string } | undefined;
  device.on("exit", (code: number | null, signal?: string, isCoreDumped?: boolean, description?: string) => {
    exit =
      code !== null && code !== undefined
        ? { code }
        : { signal: signal ?? "KILL", isCoreDumped: !!isCoreDumped, description: description ?? "" };
  });
  device.on("data", (chunk: Buffer) => session.output(chunk));
  device.stderr.on("data", (chunk: Buffer) => session.output(chunk));
  device.pipe(user, { end: false });
  device.stderr.pipe(user.stderr, { end: false });
  user.on("data", () => session.input());
  user.pipe(device);
  device.once("close", () => {
    // A zero-length write completes after everything queued before it: then the exit status, then close.
    user.stderr.write(Buffer.alloc(0), () =>
      user.write(Buffer.alloc(0), () => {
        if (exit && "code" in exit) user.exit(exit.code);
        else if (exit) user.exit(exit.signal, exit.isCoreDumped, exit.description);
        user.end();
      }),
    );
  });
  user.once("close", () => device.close());
}

/** A user's `session` channel: its requests, each allowed or refused on its own, then one of shell, exec, sftp. */
function relaySession(session: Session, link: Client, live: LiveSession, announcement: string) {
  let terminal: Terminal | undefined;
  const env = {} as NodeJS.ProcessEnv;
  let device: ClientChannel | undefined;

  session.on("pty", (accept, _reject, info: PseudoTtyInfo & { term?: string }) => {
    terminal = { term: info.term ?? "xterm", cols: info.cols, rows: info.rows, width: info.width, height: info.height };
    accept?.();
  });
  session.on("env", (accept, reject, info) => {
    if (!isAllowedEnv(info.key)) return reject?.();
    env[info.key] = info.val;
    accept?.();
  });
  session.on("window-change", (accept, _reject, info) => {
    if (terminal) Object.assign(terminal, { cols: info.cols, rows: info.rows, width: info.width, height: info.height });
    device?.setWindow(info.rows, info.cols, info.height, info.width);
    live.resize(info.cols, info.rows);
    accept?.();
  });
  session.on("signal", (accept, reject, info) => {
    if (!device) return reject?.();
    device.signal(info.name);
    accept?.();
  });
  session.on("x11", (_accept, reject) => reject?.());
  session.on("auth-agent", (_accept, reject) => reject?.());

  // Accepted at once, as the user's client may send its EOF right after the request (ssh2 then
  // refuses a late accept); the user's input waits, unread, until the device's channel is open.
  const start = (
    type: string,
    accept: () => ServerChannel | undefined,
    open: (callback: (error: Error | undefined, channel: ClientChannel) => void) => void,
    greeting = "",
  ) => {
    const user = accept();
    if (!user) return;
    user.pause();
    let isUserGone = false;
    user.once("close", () => {
      isUserGone = true;
    });
    open((error, channel) => {
      if (isUserGone) return channel?.close();
      if (error) {
        user.stderr.write(`the device refused the ${type} request\r\n`);
        user.exit(1);
        user.end();
        return;
      }
      device = channel;
      live.channelStarted(type, terminal);
      if (greeting) user.write(greeting);
      bridge(user, channel, live);
    });
  };

  const ptyOf = () => (terminal ? { ...terminal } : undefined);
  session.on("shell", (accept) => {
    start(
      "shell",
      accept,
      (callback) => link.shell(ptyOf() ?? false, { env }, callback),
      terminalGreeting(announcement),
    );
  });
  session.on("exec", (accept, _reject, info) => {
    const type = /^scp( |$)/.test(info.command) ? "scp" : "exec";
    start(type, accept, (callback) => link.exec(info.command, { env, pty: ptyOf() }, callback));
  });
  session.on("subsystem", (accept, reject, info) => {
    if (info.name !== "sftp") return reject();
    start("sftp", accept, (callback) => link.subsys("sftp", callback));
  });
}

/**
 * Relays an authenticated user connection to the device: `session` and `direct-tcpip` channels
 * go to the device (which connects to forwarding targets itself; the gateway never does);
 * everything else, remote forwarding included, is refused.
 */
export function relayConnection(user: Connection, link: Client, live: LiveSession, announcement: string) {
  user.on("session", (accept: AcceptConnection<Session>) => relaySession(accept(), link, live, announcement));
  user.on("tcpip", (accept: AcceptConnection<ServerChannel>, reject: RejectConnection, info) => {
    link.forwardOut(info.srcIP, info.srcPort, info.destIP, info.destPort, (error, channel) => {
      if (error) return reject();
      live.channelStarted("direct-tcpip");
      bridgeStreams(accept(), channel, live);
    });
  });
  user.on("request", (_accept, reject) => reject?.());
  user.on("openssh.streamlocal", (_accept: unknown, reject: RejectConnection) => reject());
}

/** A forwarded TCP connection: plain bytes both ways, each side's EOF passed on. */
function bridgeStreams(user: Channel, device: Channel, live: LiveSession) {
  user.on("data", () => live.input());
  device.pipe(user).pipe(device);
  user.once("close", () => device.close());
  device.once("close", () => user.close());
}
