import { createServer, type Server as NetServer, type Socket } from "node:net";
import type { AuthContext, Client, Connection, ParsedKey, PublicKeyAuthContext } from "ssh2";
import ssh2 from "ssh2";
import type { Db } from "../db";
import { errorText } from "../errors";
import { normalizeAddress } from "../http/source";
import { log } from "../log";
import { listenBacklog } from "../process-health";
import { parseTarget, Refusal, type Target } from "../services/ssh-access";
import { isValidSignature, sshKeyFromWire } from "./device-keys";
import { parsedHostKey } from "./host-key";
import { Lifecycle } from "./lifecycle";
import { DeviceLogin } from "./login";
import { relayConnection } from "./relay";

export type GatewayOptions = {
  /** From TCP accept to a successful login. */
  handshakeMs: number;
  /**
   * Attempts before the connection is dropped: each refusal counts, and so does each public-key
   * query (a key offered without a signature), answered or not, as OpenSSH's MaxAuthTries counts
   * each key a client offers. The refusal that reaches the limit closes the connection; so does a
   * query past it. A client may thus ask about this many keys and log in with the last of them.
   */
  maxAuthFailures: number;
  /**
   * Connections of one source address that have not logged in yet, at most: one more is closed
   * at once. Bounds what one address can hold open for `handshakeMs` (memory, descriptors).
   */
  maxUnauthenticatedPerSource: number;
};

export const defaultGatewayOptions: GatewayOptions = {
  handshakeMs: 30_000,
  maxAuthFailures: 6,
  maxUnauthenticatedPerSource: 32,
};

const offeredMethods: AuthContext["method"][] = ["publickey", "password"];

/** One user's TCP connection to the gateway. */
class GatewayConnection {
  private readonly lifecycle: Lifecycle;
  private readonly login: DeviceLogin;
  /** Refusals and answered public-key queries, toward `maxAuthFailures`. */
  private attempts = 0;
  private link?: Client;
  private readonly deadline: NodeJS.Timeout;
  private markEnded = () => {};
  /** Resolves once the socket has closed and the session row is ended. */
  readonly ended = new Promise<void>((resolve) => {
    this.markEnded = resolve;
  });

  constructor(
    db: Db,
    private readonly socket: Socket,
    private readonly options: GatewayOptions,
  ) {
    const peer = { ip: normalizeAddress(socket.remoteAddress), port: socket.remotePort ?? 0 };
    this.lifecycle = new Lifecycle("gateway connection", peer);
    this.login = new DeviceLogin(db, peer, (reason) => this.close(reason));
    this.deadline = setTimeout(() => this.close("handshake deadline passed"), options.handshakeMs);
    socket.once("close", () => this.closed());
  }

  serve(connection: Connection) {
    connection.on("authentication", (context) => {
      this.authenticate(context).catch((error: unknown) => {
        log.error("gateway authentication failed", { error: errorText(error) });
        this.refuse(context, "internal error");
      });
    });
    connection.on("ready", () => {
      const session = this.login.session;
      if (!this.link || !session) return connection.end();
      relayConnection(connection, this.link, session, session.device.announcement);
    });
    connection.on("error", (error) => log.debug("gateway connection error", { error: error.message }));
  }

  private async authenticate(context: AuthContext) {
    // ssh2 still hands over requests the client queued or sends while the connection closes.
    if (!this.lifecycle.is("connecting")) return context.reject(offeredMethods);
    if (context.method === "none") return context.reject(offeredMethods);
    const target = parseTarget(context.username);
    if (!target) return this.refuse(context, "not a USER@NAMESPACE.DEVICE login");
    if (context.method === "password") return this.attempt(context, target, { password: context.password });
    if (context.method !== "publickey") return this.refuse(context, `method ${context.method} is not offered`);
    const key = sshKeyFromWire(context.key.algo, context.key.data);
    if (!key) return this.refuse(context, "unsupported key");
    if (!context.signature || !context.blob) return this.answerQuery(context, target, key);
    if (!isValidSignature(key, context.blob, context.signature, context.hashAlgo)) {
      return this.refuse(context, "bad signature", target);
    }
    return this.attempt(context, target, { key });
  }

  /**
   * A query: the client asks whether a key would do before signing with it. Every answer reads
   * the database, and a client that holds only an admitted public key could ask without end, so
   * each query counts as an attempt.
   */
  private async answerQuery(context: PublicKeyAuthContext, target: Target, key: ParsedKey) {
    if (this.attempts >= this.options.maxAuthFailures)
      return this.refuse(context, "query past the attempt limit", target);
    try {
      await this.login.wouldAdmitKey(target, key);
    } catch (error) {
      return this.refuse(context, reasonOf(error), target);
    }
    this.attempts += 1;
    context.accept();
  }

  private async attempt(context: AuthContext, target: Target, credential: Parameters<DeviceLogin["attempt"]>[1]) {
    try {
      this.link = await this.login.attempt(target, credential);
    } catch (error) {
      return this.refuse(context, reasonOf(error), target);
    }
    if (!this.lifecycle.to("connected")) {
      this.link.end();
      return;
    }
    clearTimeout(this.deadline);
    this.link.once("close", () => this.close("the device closed the connection"));
    log.info("ssh login", { login: target.login, session: this.login.session?.uid, ip: this.socket.remoteAddress });
    context.accept();
  }

  /** Refuses an attempt; the client learns nothing but the offered methods. */
  private refuse(context: AuthContext, reason: string, target?: Target) {
    log.info("ssh login refused", { login: target?.login ?? context.username, method: context.method, reason });
    this.attempts += 1;
    // Closed first, so the request ssh2 hands over on the refusal meets a closing connection.
    if (this.attempts >= this.options.maxAuthFailures) this.close("too many failed attempts");
    context.reject(offeredMethods);
  }

  close(reason: string) {
    if (!this.lifecycle.to("draining", reason)) return;
    if (this.login.session) this.login.session.reason ||= reason;
    this.socket.end();
    // A client that does not answer the close is cut off.
    setTimeout(() => this.socket.destroy(), 5_000).unref();
  }

  private closed() {
    clearTimeout(this.deadline);
    this.lifecycle.to("draining", "socket closed");
    this.lifecycle.to("closed");
    this.link?.end();
    (this.login.session?.end() ?? Promise.resolve())
      .catch((error: unknown) => log.warn("ending the session failed", { error: errorText(error) }))
      .finally(this.markEnded);
  }
}

/** A refusal's reason; anything else is a fault, logged in full and refused as "internal error". */
function reasonOf(error: unknown) {
  if (error instanceof Refusal) return error.message;
  log.error("ssh login failed", { error: errorText(error) });
  return "internal error";
}

/** The SSH gateway on SSH_PORT: `ssh -p PORT USER@NAMESPACE.DEVICE@HOST`. */
export class SshGateway {
  private readonly listener: NetServer;
  private readonly hostKey = parsedHostKey();
  private readonly connections = new Set<GatewayConnection>();
  /** Connections not logged in yet, by source address (`maxUnauthenticatedPerSource`). */
  private readonly unauthenticated = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly options: GatewayOptions = defaultGatewayOptions,
  ) {
    this.listener = createServer((socket) => this.accept(socket));
  }

  private accept(socket: Socket) {
    socket.on("error", () => socket.destroy());
    const source = normalizeAddress(socket.remoteAddress);
    const waiting = this.unauthenticated.get(source) ?? 0;
    if (waiting >= this.options.maxUnauthenticatedPerSource) {
      log.debug("gateway connection refused: too many from one source not logged in", { source });
      socket.destroy();
      return;
    }
    this.unauthenticated.set(source, waiting + 1);
    let isCounted = true;
    const settle = () => {
      if (!isCounted) return;
      isCounted = false;
      const left = (this.unauthenticated.get(source) ?? 1) - 1;
      if (left > 0) this.unauthenticated.set(source, left);
      else this.unauthenticated.delete(source);
    };
    const connection = new GatewayConnection(this.db, socket, this.options);
    this.connections.add(connection);
    socket.once("close", () => {
      settle();
      this.connections.delete(connection);
    });
    const server = new ssh2.Server({ hostKeys: [{ key: this.hostKey } as unknown as string] });
    server.on("connection", (client) => {
      client.once("ready", settle);
      connection.serve(client);
    });
    server.injectSocket(socket);
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.listener.once("error", reject);
      this.listener.listen({ port, host, backlog: listenBacklog }, () => {
        const address = this.listener.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  }

  /** Stops listening and closes every connection; resolves when their sessions are ended. */
  async close() {
    const open = [...this.connections];
    for (const connection of open) connection.close("server stopping");
    await Promise.all([
      new Promise((resolve) => this.listener.close(resolve)),
      ...open.map((connection) => connection.ended),
    ]);
  }
}
