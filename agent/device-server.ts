import { connect, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AuthContext, Connection, ServerChannel } from "ssh2";
import ssh2 from "ssh2";
import { log } from "../lib/log";
import { accountLoginBar, checkPassword, findAccount, isRoot, type LocalAccount } from "./accounts";
import type { ServerKeyPin } from "./identity";
import { fitTunnelPackets, serveSession } from "./session";

/** Where a connection comes from: the user's address as the gateway gave it, or a TCP peer. */
export type Peer = { ip: string; port: number; session?: string };

const maxAuthAttempts = 6;

/**
 * The device's own SSH server, served inside every forwarded-tcpip channel of the tunnel (and
 * on a local socket with --listen). Its host key is the device key. A user logs in as a local
 * account with that account's password, or with the pinned server host key, which the gateway
 * uses once it has verified the user's own key and the namespace's rules.
 */
export class DeviceServer {
  private readonly connections = new Set<Connection>();
  private hasWarnedPasswords = false;

  constructor(
    private readonly hostKey: unknown,
    private readonly serverKey: ServerKeyPin,
  ) {}

  /** Runs one SSH connection over `stream`; resolves when it has closed. */
  serve(stream: Duplex, peer: Peer): Promise<void> {
    const server = new ssh2.Server({
      hostKeys: [{ key: this.hostKey } as unknown as string],
      ident: "device-access-agent",
    });
    // ssh2 reads the peer from socket-like fields; a tunnel channel gets them from the gateway's fields.
    if (!(stream instanceof Socket)) Object.assign(stream, { remoteAddress: peer.ip, remotePort: peer.port });
    return new Promise((resolve) => {
      server.on("connection", (connection) => {
        this.connections.add(connection);
        let attempts = 0;
        let account: LocalAccount | undefined;
        // A key login asks twice (query, then signed): one account lookup per name.
        const accounts = new Map<string, Promise<LocalAccount | undefined>>();
        const lookUp = (name: string) => {
          if (!accounts.has(name)) accounts.set(name, findAccount(name));
          return accounts.get(name) as Promise<LocalAccount | undefined>;
        };
        connection.on("authentication", (context) => {
          attempts += 1;
          if (attempts > maxAuthAttempts) {
            context.reject([]);
            connection.end();
            return;
          }
          this.authenticate(context, peer, lookUp).then(
            (found) => {
              account = found;
              if (found) context.accept();
              else context.reject(["password", "publickey"]);
            },
            (error: unknown) => {
              log.warn("authentication failed", { user: context.username, error: (error as Error).message });
              context.reject(["password", "publickey"]);
            },
          );
        });
        connection.on("ready", () => {
          if (!account) return connection.end();
          const user = account;
          log.info("login", { user: user.name, from: peer.ip, session: peer.session });
          connection.on("session", (accept) => serveSession(accept(), user));
          connection.on("tcpip", (accept, reject, info) => forwardTcp(accept, reject, info.destIP, info.destPort));
        });
        // Remote forwarding and other global requests are not served.
        connection.on("request", (_accept, reject) => reject?.());
        connection.on("error", (error) => log.debug("device connection error", { error: error.message }));
        connection.on("close", () => {
          this.connections.delete(connection);
          resolve();
        });
      });
      stream.once("close", () => resolve());
      server.injectSocket(stream as unknown as import("node:net").Socket);
    });
  }

  /** The account a login proves, unless shadow(5) bars it (expired account or password). */
  private async authenticate(
    context: AuthContext,
    peer: Peer,
    lookUp: (name: string) => Promise<LocalAccount | undefined>,
  ): Promise<LocalAccount | undefined> {
    const account = await this.verify(context, peer, lookUp);
    // A public-key query without a signature is only the question whether the key would do.
    const isLogin = context.method === "password" || (context.method === "publickey" && context.signature);
    if (!account || !isLogin) return account;
    const bar = await accountLoginBar(account.name, context.method === "password" ? "password" : "publickey");
    if (bar) log.info("login refused", { user: account.name, from: peer.ip, reason: bar });
    return bar ? undefined : account;
  }

  private async verify(
    context: AuthContext,
    peer: Peer,
    lookUp: (name: string) => Promise<LocalAccount | undefined>,
  ): Promise<LocalAccount | undefined> {
    if (context.method === "publickey") {
      const serverKey = this.serverKey.key;
      if (!serverKey || !this.serverKey.matches(context.key.data)) return undefined;
      const account = await lookUp(context.username);
      // Without a signature this is only the question whether the key would do.
      if (!context.signature || !context.blob) return account;
      const hashAlgo = context.hashAlgo as Parameters<typeof serverKey.verify>[2];
      return serverKey.verify(context.blob, context.signature, hashAlgo) === true ? account : undefined;
    }
    if (context.method === "password") {
      if (!isRoot()) {
        if (!this.hasWarnedPasswords) log.warn("password logins need the agent to run as root (it reads /etc/shadow)");
        this.hasWarnedPasswords = true;
        return undefined;
      }
      const account = await lookUp(context.username);
      const isValid = await checkPassword(context.username, context.password);
      if (!isValid) log.info("wrong password", { user: context.username, from: peer.ip });
      return isValid ? account : undefined;
    }
    return undefined;
  }

  /** Ends every connection (their sessions get SIGHUP). */
  closeAll() {
    for (const connection of this.connections) connection.end();
  }
}

type Accept = () => ServerChannel;

/** `direct-tcpip` (ssh -L): the device connects to the destination and relays bytes both ways. */
function forwardTcp(accept: Accept, reject: () => void, host: string, port: number) {
  const socket = connect({ host, port });
  socket.once("error", () => reject());
  socket.once("connect", () => {
    socket.removeAllListeners("error");
    const channel = fitTunnelPackets(accept());
    socket.on("error", () => channel.destroy());
    channel.on("error", () => socket.destroy());
    channel.pipe(socket).pipe(channel);
    channel.once("close", () => socket.destroy());
  });
}
