import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ClientChannel } from "ssh2";
import ssh2 from "ssh2";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { isOwnOrigin } from "../auth/browser-session";
import type { Db } from "../db";
import { errorText } from "../errors";
import { sourceAddress } from "../http/source";
import { log } from "../log";
import { shellHubMessage, terminalQuery, terminalResize } from "../schemas/terminal";
import { Refusal } from "../services/ssh-access";
import { redeemTerminalToken, type TerminalTicket } from "../services/terminal";
import { terminalGreeting } from "../text";
import { Lifecycle } from "./lifecycle";
import type { LiveSession } from "./live-session";
import { type Credential, DeviceLogin } from "./login";
import { failUpgrade, refuseUpgrade } from "./upgrade";

export const terminalPath = "/ws/ssh";

/**
 * The subprotocol of the binary protocol (output in binary messages). A client that does not
 * offer it speaks ShellHub's: its UI offers no subprotocol and writes every message as text.
 */
const binaryProtocol = "binary";

/** The close code of a refused login, for a member's terminal on the binary protocol. */
export const loginRefusedCode = 4401;

const offersBinary = (request: IncomingMessage) =>
  (request.headers["sec-websocket-protocol"] ?? "").split(",").some((protocol) => protocol.trim() === binaryProtocol);

// Output waits in the device's channel (SSH flow control) while this much is unsent to the browser.
const highWaterBytes = 1024 * 1024;

function credentialOf(ticket: TerminalTicket): Credential {
  if ("password" in ticket.credential) return { password: ticket.credential.password };
  if ("fingerprint" in ticket.credential) return { userNameSignature: ticket.credential };
  const parsed = ssh2.utils.parseKey(ticket.credential.privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Refusal("the private key does not parse");
  // The gateway holds the private key itself: the key is proven without a signature exchange.
  return { key };
}

/**
 * The browser terminal: `GET /ws/ssh?token=..&cols=..&rows=..` from a page of the service's own origin,
 * with a one-time token from `POST /ws/ssh`. The login happens before the upgrade (a refusal is
 * an HTTP 401, a fault a 500); a namespace member's terminal on the binary protocol is told the
 * refusal's reason instead, as a close with code 4401. Output goes in binary messages to a client that chose the
 * `binary` subprotocol, else in text messages (ShellHub's UI). Input is taken in either form:
 * binary messages of bytes, `{"type":"resize",..}`, or ShellHub's `{"kind":1|2,"data":..}`.
 */
export class WebTerminalEndpoint {
  private readonly sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 256 * 1024,
    handleProtocols: (offered) => (offered.has(binaryProtocol) ? binaryProtocol : false),
  });
  private readonly endings = new Set<Promise<void>>();

  constructor(private readonly db: Db) {}

  /** Ends every open terminal (server stopping); resolves when their sessions are ended. */
  async closeAll() {
    for (const client of this.sockets.clients) client.close(1001, "server stopping");
    setTimeout(() => {
      for (const client of this.sockets.clients) client.terminate();
    }, 2_000).unref();
    await Promise.all(this.endings);
  }

  /**
   * Tells a namespace member's terminal why the login was refused: a browser cannot read the body
   * of a refused upgrade, but it can read a close frame's code and reason.
   */
  private closeWithReason(request: IncomingMessage, socket: Duplex, head: Buffer, reason: string) {
    this.sockets.handleUpgrade(request, socket, head, (ws) => ws.close(loginRefusedCode, reason.slice(0, 120)));
  }

  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === "string") headers.set(name, value);
    if (!isOwnOrigin(request.headers.origin, headers)) return refuseUpgrade(socket, 403, "origin not allowed");
    const query = terminalQuery.safeParse(Object.fromEntries(new URL(request.url ?? "", "http://local").searchParams));
    if (!query.success) return refuseUpgrade(socket, 400, "expected token, cols and rows");
    const ticket = await redeemTerminalToken(this.db, query.data.token);
    if (!ticket) return refuseUpgrade(socket, 401, "invalid or used token");

    const peer = { ip: sourceAddress(headers), port: request.socket.remotePort ?? 0 };
    const lifecycle = new Lifecycle("browser terminal", { session: ticket.sessionUid });
    let webSocket: WebSocket | undefined;
    const close = (reason: string) => {
      if (lifecycle.to("draining", reason)) webSocket?.close(1000, "session closed");
      if (!webSocket) socket.destroy();
    };
    const login = new DeviceLogin(this.db, peer, close, ticket.sessionUid);
    const target = {
      login: `${ticket.username}@${ticket.deviceUid}`,
      user: ticket.username,
      device: ticket.deviceUid,
      tenantId: ticket.member?.tenantId,
    };
    let link: ssh2.Client;
    try {
      link = await login.attempt(target, credentialOf(ticket));
    } catch (error) {
      await login.session?.end();
      // A fault, unlike a refusal, is a 500 with a request id (server.ts).
      if (!(error instanceof Refusal)) throw error;
      log.info("browser terminal login refused", { login: target.login, reason: error.message });
      if (ticket.member && offersBinary(request)) return this.closeWithReason(request, socket, head, error.message);
      return refuseUpgrade(socket, 401, "authentication failed");
    }
    const session = login.session as LiveSession;
    let channel: ClientChannel | undefined;
    let markEnded = () => {};
    const ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    this.endings.add(ended);
    let isFinished = false;
    /** Once, however the terminal ends: the device connection closes and the session row is ended. */
    const finish = (reason: string, isNormal = false) => {
      if (isFinished) return;
      isFinished = true;
      lifecycle.to("draining", reason);
      lifecycle.to("closed");
      if (!isNormal) session.reason ||= reason;
      channel?.close();
      link.end();
      session
        .end()
        .catch((error: unknown) => log.warn("ending the session failed", { error: errorText(error) }))
        .finally(() => {
          this.endings.delete(ended);
          markEnded();
        });
    };
    socket.once("close", () => {
      if (!webSocket) finish("the browser left before the terminal opened");
    });
    const terminal = { term: "xterm-256color", cols: query.data.cols, rows: query.data.rows, width: 0, height: 0 };
    link.shell(terminal, {}, (error, opened) => {
      channel = opened;
      if (error || socket.destroyed || !lifecycle.to("connected")) {
        const message = "the device refused the shell";
        failUpgrade(socket, request, {
          status: 502,
          message,
          reason: message,
          cause: error ?? "the terminal closed before the shell opened",
        });
        return finish(message);
      }
      this.sockets.handleUpgrade(request, socket, head, (ws) => {
        webSocket = ws;
        session.channelStarted("web", terminal);
        relayTerminal(ws, opened, session);
        ws.once("close", () => finish("browser closed", true));
      });
    });
  }
}

/**
 * Sends terminal output as the client's protocol wants it: bytes as they come, or text for
 * ShellHub's UI, decoded as a stream so a UTF-8 sequence split between chunks arrives whole
 * (bytes that are no UTF-8 become U+FFFD, as ShellHub sends them).
 */
function outputSender(ws: WebSocket) {
  if (ws.protocol === binaryProtocol) {
    return { send: (chunk: Buffer, sent?: () => void) => ws.send(chunk, { binary: true }, sent), end: () => {} };
  }
  const decoder = new TextDecoder("utf-8");
  return {
    send: (chunk: Buffer, sent?: () => void) => ws.send(decoder.decode(chunk, { stream: true }), sent),
    end: () => {
      const rest = decoder.decode();
      if (rest) ws.send(rest);
    },
  };
}

type TerminalInput = { bytes: Buffer } | { size: { cols: number; rows: number } };

/** A message from the browser, in either protocol; undefined for anything else (ignored). */
function inputOf(data: RawData, isBinary: boolean): TerminalInput | undefined {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  if (isBinary) return { bytes };
  let message: unknown;
  try {
    message = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  const resize = terminalResize.safeParse(message);
  if (resize.success) return { size: resize.data };
  const shellHub = shellHubMessage.safeParse(message);
  if (!shellHub.success) return undefined;
  if (shellHub.data.kind === 2) return { size: shellHub.data.data };
  const typed = shellHub.data.data;
  return { bytes: typeof typed === "string" ? Buffer.from(typed, "utf8") : Buffer.from(typed) };
}

function relayTerminal(ws: WebSocket, channel: ClientChannel, session: LiveSession) {
  const output = outputSender(ws);
  const greeting = terminalGreeting(session.device.announcement);
  if (greeting) output.send(Buffer.from(greeting));
  const toBrowser = (chunk: Buffer) => {
    session.output(chunk);
    output.send(chunk, () => {
      if (ws.bufferedAmount < highWaterBytes / 4) channel.resume();
    });
    if (ws.bufferedAmount > highWaterBytes) channel.pause();
  };
  channel.on("data", toBrowser);
  channel.stderr.on("data", toBrowser);
  channel.once("close", () => {
    output.end();
    ws.close(1000, "shell ended");
  });
  ws.on("message", (data: RawData, isBinary: boolean) => {
    const input = inputOf(data, isBinary);
    if (!input) return;
    if ("bytes" in input) {
      session.input();
      channel.write(input.bytes);
      return;
    }
    channel.setWindow(input.size.rows, input.size.cols, 0, 0);
    session.resize(input.size.cols, input.size.rows);
  });
}
