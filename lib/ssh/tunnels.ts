import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import ssh2, { type Connection, type ParsedKey, type ServerChannel } from "ssh2";
import { createWebSocketStream, WebSocketServer } from "ws";
import { bearerToken, type DeviceClaims, verifyDeviceToken } from "../auth/jwt";
import { getConfig } from "../config";
import type { Db } from "../db";
import { errorText } from "../errors";
import { normalizeAddress } from "../http/source";
import { log } from "../log";
import { processSingleton } from "../process-state";
import { agentTimeHeader, forwardedSsh } from "../protocol";
import { deviceRevoked } from "../services/devices";
import { hub } from "../services/events";
import {
  TunnelOwnershipWriter,
  type TunnelStatus,
  tunnelAdmissionReader,
  unscopedForgetInstanceTunnels,
  unscopedRecordTunnelError,
  unscopedRefreshTunnelLiveness,
  unscopedTunnelAdmittedDevices,
} from "../services/tunnels";
import { isValidSignature, sshKeyFromPem } from "./device-keys";
import { parsedHostKey } from "./host-key";
import { Lifecycle } from "./lifecycle";
import { TunnelAdmission } from "./tunnel-admission";
import { refuseUpgrade } from "./upgrade";

const handshakeMs = 30_000;
// From the upgrade to the registration at most: the SSH handshake's own deadline starts only once
// the agent has sent its identification, and a connection that never does must not keep its
// place in the admission (nor keep a stopping server waiting).
const setUpMs = 45_000;
const closeGraceMs = 2_000;
// Tunnel messages are SSH packets of up to 32 KiB: the default 16 KiB buffer would pause the socket after each.
export const tunnelStreamOptions = { readableHighWaterMark: 1024 * 1024 };

// Pending devices hold tunnels (carrying no session) so that an accept makes them reachable at
// once; this many per namespace on one instance, so that registrations cannot pile up connections.
const maxPendingTunnelsPerNamespace = 1_000;

/**
 * The agent's clock minus ours, from the time it sent with the upgrade; null when it sent none
 * (or nonsense: more than a year off either way).
 */
function clockSkewOf(request: IncomingMessage): number | null {
  const sent = Number(request.headers[agentTimeHeader]);
  if (!Number.isSafeInteger(sent)) return null;
  const skew = sent - Date.now();
  return Math.abs(skew) > 366 * 86_400_000 ? null : skew;
}

/**
 * A tunnel carries its device's liveness: every interval this instance marks the devices of its
 * tunnels seen (no heartbeat needed from their agents), and the tunnel's SSH keepalive asks the
 * agent as often. An agent that stops answering (frozen, its network gone) has its tunnel closed
 * after 4 unanswered intervals and its device offline at once: about DEVICE_OFFLINE_SECONDS, as
 * for an agent that stops its heartbeats.
 */
export const tunnelLivenessMs = () => Math.min(30_000, (getConfig().DEVICE_OFFLINE_SECONDS * 1000) / 4);

/** `status`: what the device was when its tunnel was admitted, kept up to date by status events. */
export type TunnelDevice = {
  uid: string;
  tenantId: string;
  /**
   * The device's key until its agent has logged in, dropped then: a parsed key's buffers are cut
   * from Buffer's shared 8 KiB pool, and a key held for a tunnel's life kept a whole slab alive
   * with it (docs/performance.md).
   */
  publicKey: ParsedKey | undefined;
  status: TunnelStatus;
};

/** A device's authenticated tunnel: the server side of the agent's SSH connection. */
export class Tunnel {
  readonly lifecycle: Lifecycle;
  /** Session uid -> channels open for it: the sessions this tunnel keeps alive. */
  private readonly sessionChannels = new Map<string, number>();

  constructor(
    readonly device: TunnelDevice,
    private readonly connection: Connection,
    private readonly stream: Duplex,
  ) {
    this.lifecycle = new Lifecycle("tunnel", { device: device.uid });
  }

  /**
   * Opens a forwarded-tcpip channel to the agent for one user session: the "connected address"
   * carries the session uid, the originator the user's address (docs/ssh-path.md 3).
   */
  openChannel(sessionUid: string, userIp: string, userPort: number): Promise<ServerChannel> {
    return new Promise((resolve, reject) => {
      if (!this.lifecycle.is("connected")) {
        reject(new Error("the tunnel is closing"));
        return;
      }
      this.connection.forwardOut(sessionUid, forwardedSsh.port, userIp, userPort, (error, channel) => {
        if (error) return reject(error);
        this.sessionChannels.set(sessionUid, (this.sessionChannels.get(sessionUid) ?? 0) + 1);
        channel.once("close", () => {
          const open = (this.sessionChannels.get(sessionUid) ?? 1) - 1;
          if (open > 0) this.sessionChannels.set(sessionUid, open);
          else this.sessionChannels.delete(sessionUid);
        });
        resolve(channel);
      });
    });
  }

  /** The uids of the sessions with a channel open on this tunnel. */
  sessions(): IterableIterator<string> {
    return this.sessionChannels.keys();
  }

  /** Stops new channels; open ones are closed with the connection. */
  close(reason: string) {
    if (this.lifecycle.to("draining", reason)) log.info("tunnel closing", { device: this.device.uid, reason });
    this.connection.end();
    // An agent that does not answer the SSH and WebSocket close is cut off.
    setTimeout(() => this.stream.destroy(), closeGraceMs).unref();
  }
}

function registry() {
  return processSingleton("tunnels", () => {
    const live = new Map<string, Tunnel>();
    // Status changes and deletions made through the API on this instance drop the tunnel at once;
    // those made through another instance, as soon as their event arrives.
    deviceRevoked.on((uid) => live.get(uid)?.close("the device is no longer accepted"));
    hub().subscribeAll((event) => {
      const tunnel = live.get(event.uid);
      if (!tunnel || (event.type !== "device.status" && event.type !== "device.removed")) return;
      const status = event.type === "device.status" ? String(event.patch.status) : "removed";
      if (status === "accepted" || status === "pending") tunnel.device.status = status;
      else tunnel.close("the device is no longer accepted");
    });
    return { tunnels: live, instance: "local", isStopping: false };
  });
}

/** The tunnels of a namespace's pending devices on this instance. */
function pendingTunnels(tenantId: string) {
  let count = 0;
  for (const tunnel of registry().tunnels.values()) {
    if (tunnel.device.tenantId === tenantId && tunnel.device.status === "pending") count += 1;
  }
  return count;
}

/** Names this server instance in the ownership rows (its internal URL). */
export function setInstance(instance: string) {
  registry().instance = instance;
}

/** The live tunnel of a device on this instance, if any. */
export const findTunnel = (deviceUid: string) => {
  const tunnel = registry().tunnels.get(deviceUid);
  return tunnel?.lifecycle.is("connected") ? tunnel : undefined;
};

/** Closes the device's tunnel (status changed away from accepted, device deleted). */
export function dropTunnel(deviceUid: string, reason: string) {
  registry().tunnels.get(deviceUid)?.close(reason);
}

/** This instance's name in the ownership rows. */
export const thisInstance = () => registry().instance;

/** What the connection of a stream injected into the SSH server serves. */
type TunnelStart = { device: TunnelDevice; address: string; clockSkewMs: number | null };

/** The stream an SSH server connection runs on: ssh2 names it `_sock` alone. */
const injectedStream = (connection: Connection) => (connection as unknown as { _sock: Duplex })._sock;

/**
 * The tunnel endpoint: `GET /agent/tunnel` with the device token upgrades to a WebSocket over
 * which the agent runs SSH. Refused (401/403) before the upgrade unless the token is a valid
 * device token of an accepted or pending device (a pending device's tunnel waits for the accept,
 * carrying no session until then).
 */
export class TunnelEndpoint {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });
  /**
   * One SSH server for every tunnel, each tunnel's stream injected into it: a server of its own
   * per tunnel kept its key exchange offer, its buffers and a Node server for the tunnel's life
   * (docs/performance.md).
   */
  private readonly sshServer = new ssh2.Server({
    hostKeys: [{ key: parsedHostKey() } as unknown as string],
    keepaliveInterval: tunnelLivenessMs(),
    keepaliveCountMax: 3,
  });
  /** What each stream injected into the SSH server carries: its device, its agent's address and clock skew. */
  private readonly injected = new WeakMap<Duplex, TunnelStart>();
  /** This instance's ownership rows, written in batches in the order tunnels come and go. */
  private readonly ownership: TunnelOwnershipWriter;
  /** A device's key and status when it may hold a tunnel, looked up in batches. */
  private readonly admitted: ReturnType<typeof tunnelAdmissionReader>;
  private readonly admission: TunnelAdmission;
  /** What tells the admission that a device's tunnel in progress is registered. */
  private readonly registering = new WeakMap<TunnelDevice, () => void>();

  /** `maxHandshakes`: tunnels in progress (and ownership writes queued) at once; more wait in line, then 429. */
  constructor(
    private readonly db: Db,
    maxHandshakes: number,
  ) {
    this.ownership = new TunnelOwnershipWriter(db, () => registry().instance);
    this.admission = new TunnelAdmission(maxHandshakes, () => this.ownership.backlog);
    this.admitted = tunnelAdmissionReader(db);
    this.sshServer.on("connection", (connection) => {
      const stream = injectedStream(connection);
      const start = this.injected.get(stream);
      this.injected.delete(stream);
      if (start) this.serve(connection, stream, start);
      else connection.end();
    });
  }

  /** Whether upgrades wait in line for a place: a fleet is reconnecting. */
  get isCrowded(): boolean {
    return this.admission.waiting > 0;
  }

  /**
   * Rows this instance left behind when it last stopped without cleaning up (a crash); all rows
   * when it is the only instance there can be (the embedded database).
   */
  async forgetStaleOwnership(isOnlyInstance: boolean) {
    await unscopedForgetInstanceTunnels(this.db, isOnlyInstance ? undefined : registry().instance);
  }

  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    // The token first, a signature checked in memory: an upgrade without one cannot take a place
    // in the line. Then the admission: a fleet coming back at once waits in line or is spread out.
    const token = bearerToken(request.headers.authorization);
    const claims = token ? verifyDeviceToken(token) : undefined;
    if (!claims) return refuseUpgrade(socket, 401, "a valid device token is required");
    // Gone while its token was checked: its close came before the listener below could hear it,
    // and a place taken now would never be given back.
    if (socket.destroyed) return;
    const handshake = {};
    let deadline: NodeJS.Timeout | undefined;
    const leave = (completed: boolean) => {
      clearTimeout(deadline);
      this.admission.leave(handshake, completed);
    };
    // However the attempt ends before its registration (refused, given up by the agent in line or
    // later, cut off).
    socket.once("close", () => leave(false));
    const busy = await this.admission.enter(handshake, claims.uid);
    if (busy) {
      const { retryAfterSeconds } = busy;
      return refuseUpgrade(socket, 429, "too many tunnels are being set up: try again later", {
        "Retry-After": String(retryAfterSeconds),
      });
    }
    // The agent gave up while its upgrade waited in line.
    if (socket.destroyed) return;
    deadline = setTimeout(() => socket.destroy(), setUpMs);
    try {
      await this.admit(request, socket, head, claims, leave);
    } catch (error) {
      leave(false);
      throw error;
    }
  }

  private async admit(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    claims: DeviceClaims,
    leave: (completed: boolean) => void,
  ) {
    const refused = (status: number, message: string) => {
      leave(false);
      refuseUpgrade(socket, status, message);
    };
    const admission = await this.admitted(claims.uid, claims.tenant);
    const publicKey = admission && sshKeyFromPem(admission.publicKey);
    // The answer waits for the record, so that whoever reads the diagnostics after a refusal
    // finds why.
    const refuse = async (message: string) => {
      await this.recordError(claims.uid, `refused: ${message}`);
      refused(403, message);
    };
    if (!admission || !publicKey) return refuse("the device is not accepted");
    if (admission.status === "pending" && pendingTunnels(claims.tenant) >= maxPendingTunnelsPerNamespace) {
      return refuse("the device is not accepted (too many pending devices wait)");
    }
    const address = normalizeAddress(request.socket.remoteAddress);
    const device = { uid: claims.uid, tenantId: claims.tenant, publicKey, status: admission.status };
    this.registering.set(device, () => leave(true));
    const clockSkewMs = clockSkewOf(request);
    this.sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const stream = createWebSocketStream(webSocket, tunnelStreamOptions);
      stream.on("error", () => webSocket.terminate());
      this.injected.set(stream, { device, address, clockSkewMs });
      this.sshServer.injectSocket(stream as unknown as import("node:net").Socket);
    });
  }

  /** Keeps why a device's tunnel was refused or dropped, for its diagnostics; never fails the caller. */
  private recordError(deviceUid: string, message: string): Promise<void> {
    return unscopedRecordTunnelError(this.db, deviceUid, message).catch((error: unknown) =>
      log.warn("recording a tunnel error failed", { device: deviceUid, error: errorText(error) }),
    );
  }

  /** Serves a tunnel's SSH connection: the agent's login as its device, then its forwarding request. */
  private serve(connection: Connection, stream: Duplex, { device, address, clockSkewMs }: TunnelStart) {
    const tunnel = new Tunnel(device, connection, stream);
    const deadline = setTimeout(() => {
      this.recordError(device.uid, `the SSH handshake did not finish within ${handshakeMs / 1000} s`);
      tunnel.close("handshake deadline");
    }, handshakeMs);
    let isAuthenticated = false;
    connection.on("authentication", (context) => {
      if (context.method !== "publickey" || context.username !== device.uid) return context.reject(["publickey"]);
      const offered = context.key;
      const deviceKey = device.publicKey;
      if (!deviceKey || !offered.data.equals(deviceKey.getPublicSSH())) return context.reject(["publickey"]);
      // A query without a signature proves nothing: answer it, change nothing.
      if (!context.signature || !context.blob) return context.accept();
      if (!isValidSignature(deviceKey, context.blob, context.signature, context.hashAlgo)) {
        this.recordError(device.uid, "the agent's signature does not verify with the device's key");
        return context.reject(["publickey"]);
      }
      this.admitted(device.uid, device.tenantId)
        .then((admission) => {
          if (admission && sshKeyFromPem(admission.publicKey)?.getPublicSSH().equals(offered.data)) {
            device.status = admission.status;
            isAuthenticated = true;
            device.publicKey = undefined;
            context.accept();
          } else {
            context.reject(["publickey"]);
          }
        })
        .catch((error: unknown) => {
          log.warn("tunnel authentication failed", { device: device.uid, error: errorText(error) });
          context.reject(["publickey"]);
        });
    });
    connection.on("request", (accept, reject, name, info) => {
      const isForward =
        name === "tcpip-forward" &&
        isAuthenticated &&
        info.bindAddr === forwardedSsh.address &&
        info.bindPort === forwardedSsh.port &&
        tunnel.lifecycle.is("connecting");
      if (!isForward || !accept) return reject?.();
      clearTimeout(deadline);
      accept();
      this.register(tunnel, address, clockSkewMs);
    });
    // The agent opens nothing towards the server.
    connection.on("session", (_accept, reject) => reject());
    connection.on("tcpip", (_accept, reject) => reject());
    connection.on("error", (error) => {
      log.debug("tunnel error", { device: device.uid, error: error.message });
      this.recordError(device.uid, `the tunnel failed: ${error.message}`);
      // A keepalive timeout ends the SSH connection politely, which waits for a frozen agent's
      // WebSocket close: the tunnel is cut off instead.
      tunnel.close(`the tunnel failed: ${error.message}`);
    });
    connection.on("close", () => {
      clearTimeout(deadline);
      this.unregister(tunnel);
    });
  }

  private register(tunnel: Tunnel, address: string, clockSkewMs: number | null) {
    const { tunnels: live } = registry();
    const uid = tunnel.device.uid;
    if (!tunnel.lifecycle.to("connected")) return;
    this.registering.get(tunnel.device)?.();
    const previous = live.get(uid);
    live.set(uid, tunnel);
    previous?.close("replaced by a new tunnel");
    log.info("tunnel connected", { device: uid, address, status: tunnel.device.status });
    this.ownership.opened(uid, clockSkewMs);
  }

  private unregister(tunnel: Tunnel) {
    const { tunnels: live, isStopping } = registry();
    const uid = tunnel.device.uid;
    const wasRegistered = live.get(uid) === tunnel;
    tunnel.lifecycle.to("draining", "connection closed");
    tunnel.lifecycle.to("closed");
    if (!wasRegistered) return;
    live.delete(uid);
    log.info("tunnel closed", { device: uid });
    // A stopping server forgets all its rows at once (closeAll).
    if (isStopping) return;
    // The device is offline at once, unless a newer tunnel of it is up on another instance.
    this.ownership.closed(uid);
  }

  /**
   * Drops tunnels whose device is neither accepted nor pending (changed on this or another
   * instance whose event was lost, deleted, or its namespace deleted).
   */
  async sweep() {
    const uids = [...registry().tunnels.keys()];
    if (uids.length === 0) return;
    const keep = await unscopedTunnelAdmittedDevices(this.db, uids);
    for (const uid of uids) if (!keep.has(uid)) dropTunnel(uid, "the device is no longer accepted");
  }

  /**
   * Marks the devices of this instance's tunnels, and the sessions open on them, seen now: the
   * tunnel is their heartbeat (tunnelLivenessMs).
   */
  async refreshLiveness() {
    const deviceUids: string[] = [];
    const sessionUids: string[] = [];
    for (const tunnel of registry().tunnels.values()) {
      if (!tunnel.lifecycle.is("connected")) continue;
      deviceUids.push(tunnel.device.uid);
      sessionUids.push(...tunnel.sessions());
    }
    if (deviceUids.length > 0)
      await unscopedRefreshTunnelLiveness(this.db, registry().instance, deviceUids, sessionUids);
  }

  /**
   * Closes every tunnel (server stopping) and forgets this instance's ownership rows: their
   * devices are offline until their agents reach another instance, or this one again.
   */
  async closeAll() {
    const state = registry();
    const { tunnels: live, instance } = state;
    state.isStopping = true;
    for (const tunnel of live.values()) tunnel.close("server stopping");
    // Rows being written now must not outlive the forgetting.
    await this.ownership.settled();
    await unscopedForgetInstanceTunnels(this.db, instance);
  }
}
