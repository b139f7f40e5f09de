import { Client, type ClientChannel } from "ssh2";
import WebSocket, { createWebSocketStream } from "ws";
import { log } from "../lib/log";
import { agentTimeHeader, forwardedSsh, hexUidShape, tunnelPath } from "../lib/protocol";
import { Backoff, retryAfterDelay } from "./backoff";
import type { DeviceServer } from "./device-server";
import { type DeviceKey, publicKeyAuth, type ServerKeyPin } from "./identity";
import { type DeviceCredentials, type Registration, RegistrationError } from "./registration";

const keepaliveMs = 30_000;
export const connectTimeoutMs = 20_000;

export type TunnelPhase = "idle" | "connecting" | "connected" | "waiting" | "stopped";

type Attempt = { socket: WebSocket; client?: Client };

/**
 * The agent's one tunnel: a WebSocket to the server with the device token, an SSH client over it
 * (the device uid and key, the server's host key pinned), and `tcpip-forward`; each forwarded
 * channel is one user session served by the device's SSH server. Whenever the tunnel is refused
 * or goes away, it is tried again after a jittered back-off, or, when a busy server answered 429,
 * after the Retry-After it asked for (lengthened at random). No inbound port is needed.
 */
export class Tunnel {
  private current: TunnelPhase = "idle";
  private attempt: Attempt | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff();
  /** Session uid -> open channels for it. */
  private readonly channels = new Map<string, number>();
  private lastFailure = "";
  private needsFreshToken = false;
  private readonly listeners = new Set<(phase: TunnelPhase) => void>();

  constructor(
    private readonly serverUrl: string,
    private readonly registration: Registration,
    private readonly deviceKey: DeviceKey,
    private readonly serverKey: ServerKeyPin,
    private readonly deviceServer: DeviceServer,
  ) {}

  get phase(): TunnelPhase {
    return this.current;
  }

  /** The uids of the sessions served right now (the heartbeat's `sessions`). */
  sessions(): string[] {
    return [...this.channels.keys()];
  }

  onPhase(listener: (phase: TunnelPhase) => void) {
    this.listeners.add(listener);
  }

  start() {
    if (this.current === "idle") void this.connect();
  }

  /** Closes the tunnel and its sessions; no more attempts. */
  stop() {
    this.to("stopped");
    clearTimeout(this.retryTimer);
    this.deviceServer.closeAll();
    this.attempt?.client?.end();
    this.attempt?.socket.close();
  }

  private to(phase: TunnelPhase) {
    if (this.current === "stopped" || this.current === phase) return;
    this.current = phase;
    for (const listener of this.listeners) listener(phase);
  }

  /** Logs a failure when it differs from the previous one: a device waiting for acceptance logs once. */
  private fail(problem: string) {
    if (problem !== this.lastFailure) log.warn("tunnel unavailable, retrying with back-off", { reason: problem });
    this.lastFailure = problem;
  }

  /** `retryAfterMs`: the wait a busy server asked for, instead of the back-off's. */
  private retry(retryAfterMs?: number) {
    if (this.current === "stopped") return;
    this.to("waiting");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), retryAfterMs ?? this.backoff.next());
  }

  private async connect() {
    if (this.current === "stopped") return;
    this.to("connecting");
    let credentials = this.registration.credentials;
    if (!credentials || this.needsFreshToken) {
      try {
        credentials = await this.registration.authenticate();
        this.needsFreshToken = false;
      } catch (error) {
        // The registration logs its own failures.
        return this.retry(error instanceof RegistrationError ? error.retryAfterMs : undefined);
      }
    }
    if (this.current !== "connecting") return;
    this.open(credentials);
  }

  private open(credentials: DeviceCredentials) {
    const url = `${this.serverUrl.replace(/^http/, "ws")}${tunnelPath}`;
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${credentials.token}`, [agentTimeHeader]: String(Date.now()) },
      perMessageDeflate: false,
      handshakeTimeout: connectTimeoutMs,
      // Masking guards proxies against attacker-chosen bytes; the tunnel carries only SSH
      // ciphertext, and an all-zero key lets ws send frames without copying them.
      generateMask: (mask: Buffer) => mask.fill(0),
    });
    const attempt: Attempt = { socket };
    this.attempt = attempt;
    let hasEnded = false;
    const ended = (problem?: string, retryAfterMs?: number) => {
      if (hasEnded) return;
      hasEnded = true;
      if (problem && this.current !== "stopped") this.fail(problem);
      attempt.client?.end();
      socket.terminate();
      if (this.attempt === attempt) this.retry(retryAfterMs);
    };
    socket.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      // 401: the token is stale or unknown; 403: the device is pending, rejected or removed;
      // 429: the server is busy setting up other tunnels and says when to come back.
      if (status === 401) this.needsFreshToken = true;
      if (status === 429) {
        const retryAfterMs = retryAfterDelay(response.headers["retry-after"]);
        return ended(`the server is busy (429), retrying after ${response.headers["retry-after"]} s`, retryAfterMs);
      }
      ended(
        status === 403
          ? "the server refuses the tunnel: the device is not accepted (403)"
          : `the server refuses the tunnel (${status})`,
      );
    });
    socket.on("error", (error) => ended(`the tunnel's connection failed: ${error.message}`));
    socket.on("close", () =>
      ended(this.current === "connected" ? "the tunnel closed" : "the tunnel closed before it was ready"),
    );
    socket.on("open", () => {
      // Tunnel messages are SSH packets of up to 32 KiB: a smaller buffer would pause the socket after each one.
      const stream = createWebSocketStream(socket, { readableHighWaterMark: 1024 * 1024 });
      stream.on("error", () => ended("the tunnel's stream failed"));
      const client = new Client();
      attempt.client = client;
      let isKeyRefused = false;
      client.on("ready", () =>
        client.forwardIn(forwardedSsh.address, forwardedSsh.port, (error) => {
          if (error) return ended(`the server refused the forwarding: ${error.message}`);
          acceptSessionChannels(client);
          this.backoff.reset();
          this.lastFailure = "";
          this.to("connected");
          log.info("tunnel connected", { uid: credentials.uid, server: this.serverUrl });
        }),
      );
      client.on("tcp connection", (details, accept, reject) => {
        if (!hexUidShape.test(details.destIP)) return reject();
        this.serveChannel(accept(), details.destIP, details.srcIP, details.srcPort);
      });
      client.on("error", (error) =>
        ended(
          isKeyRefused ? "the server's host key differs from the pinned one" : `the tunnel failed: ${error.message}`,
        ),
      );
      client.on("close", () => ended(this.current === "connected" ? "the tunnel closed" : undefined));
      client.connect({
        sock: stream,
        username: credentials.uid,
        authHandler: [publicKeyAuth(credentials.uid, this.deviceKey.parsed)],
        hostVerifier: (key: Buffer) => {
          isKeyRefused = !this.serverKey.verify(key);
          return !isKeyRefused;
        },
        keepaliveInterval: keepaliveMs,
        keepaliveCountMax: 3,
        readyTimeout: connectTimeoutMs,
      });
    });
  }

  private serveChannel(channel: ClientChannel, session: string, ip: string, port: number) {
    this.channels.set(session, (this.channels.get(session) ?? 0) + 1);
    channel.on("error", () => channel.destroy());
    void this.deviceServer.serve(channel, { ip, port, session }).finally(() => {
      const open = (this.channels.get(session) ?? 1) - 1;
      if (open > 0) this.channels.set(session, open);
      else this.channels.delete(session);
    });
  }
}

/**
 * ssh2's client only takes forwarded channels whose "connected address" is a bound one; the
 * server puts the session uid there (docs/ssh-path.md 3), so every session address is answered
 * as the bound `device:22`.
 */
function acceptSessionChannels(client: Client) {
  const internals = client as unknown as { _forwarding: Record<string, number> };
  const bound = internals._forwarding;
  const suffix = `:${forwardedSsh.port}`;
  const boundKey = `${forwardedSsh.address}${suffix}`;
  internals._forwarding = new Proxy(bound, {
    get: (target, key) => {
      if (typeof key === "string" && key.endsWith(suffix) && hexUidShape.test(key.slice(0, -suffix.length))) {
        return target[boundKey];
      }
      return Reflect.get(target, key);
    },
  });
}
