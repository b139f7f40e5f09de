import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ClientChannel } from "ssh2";
import ssh2 from "ssh2";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { Db } from "../db";
import { errorText } from "../errors";
import { sourceAddress } from "../http/source";
import { log } from "../log";
import { terminalQuery, terminalResize } from "../schemas/terminal";
import { Refusal } from "../services/ssh-access";
import { redeemTerminalToken, type TerminalTicket } from "../services/terminal";
import { terminalGreeting } from "../text";
import { Lifecycle } from "./lifecycle";
import type { LiveSession } from "./live-session";
import { type Credential, DeviceLogin } from "./login";
import { failUpgrade, refuseUpgrade } from "./upgrade";

export const terminalPath = "/ws/ssh";

// Output waits in the device's channel (SSH flow control) while this much is unsent to the browser.
const highWaterBytes = 1024 * 1024;

function credentialOf(ticket: TerminalTicket): Credential {
  if ("password" in ticket.credential) return { password: ticket.credential.password };
  const parsed = ssh2.utils.parseKey(ticket.credential.privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Refusal("the private key does not parse");
  // The gateway holds the private key itself: the key is proven without a signature exchange.
  return { key };
}

/**
 * The browser terminal: `GET /ws/ssh?token=..&cols=..&rows=..` from a page of PUBLIC_URL's origin,
 * with a one-time token from `POST /ws/ssh`. The login happens before the upgrade (a refusal is
 * an HTTP 401, a fault a 500); then binary messages carry terminal bytes both ways and text messages
 * `{"type":"resize","cols":..,"rows":..}` resize the terminal.
 */
export class WebTerminalEndpoint {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  private readonly endings = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly allowedOrigin: string,
  ) {}

  /** Ends every open terminal (server stopping). */
  /** Ends every open terminal (server stopping); resolves when their sessions are ended. */
  async closeAll() {
    for (const client of this.sockets.clients) client.close(1001, "server stopping");
    setTimeout(() => {
      for (const client of this.sockets.clients) client.terminate();
    }, 2_000).unref();
    await Promise.all(this.endings);
  }

  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    if (request.headers.origin !== this.allowedOrigin) return refuseUpgrade(socket, 403, "origin not allowed");
    const query = terminalQuery.safeParse(Object.fromEntries(new URL(request.url ?? "", "http://local").searchParams));
    if (!query.success) return refuseUpgrade(socket, 400, "expected token, cols and rows");
    const ticket = await redeemTerminalToken(this.db, query.data.token);
    if (!ticket) return refuseUpgrade(socket, 401, "invalid or used token");

    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === "string") headers.set(name, value);
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
      tenantId: ticket.tenantId,
    };
    let link: ssh2.Client;
    try {
      link = await login.attempt(target, credentialOf(ticket));
    } catch (error) {
      await login.session?.end();
      // A fault, unlike a refusal, is a 500 with a request id (server.ts).
      if (!(error instanceof Refusal)) throw error;
      log.info("browser terminal login refused", { login: target.login, reason: error.message });
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

function relayTerminal(ws: WebSocket, channel: ClientChannel, session: LiveSession) {
  const greeting = terminalGreeting(session.device.announcement);
  if (greeting) ws.send(Buffer.from(greeting));
  const toBrowser = (chunk: Buffer) => {
    session.output(chunk);
    ws.send(chunk, { binary: true }, () => {
      if (ws.bufferedAmount < highWaterBytes / 4) channel.resume();
    });
    if (ws.bufferedAmount > highWaterBytes) channel.pause();
  };
  channel.on("data", toBrowser);
  channel.stderr.on("data", toBrowser);
  channel.once("close", () => ws.close(1000, "shell ended"));
  ws.on("message", (data: RawData, isBinary: boolean) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) {
      session.input();
      channel.write(bytes);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(bytes.toString("utf8"));
    } catch {
      return;
    }
    const resize = terminalResize.safeParse(message);
    if (!resize.success) return;
    channel.setWindow(resize.data.rows, resize.data.cols, 0, 0);
    session.resize(resize.data.cols, resize.data.rows);
  });
}
