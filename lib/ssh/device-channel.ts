import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ServerChannel } from "ssh2";
import WebSocket, { createWebSocketStream, WebSocketServer } from "ws";
import { internalSecret, internalSecretHeader, isInternalSecret } from "../auth/internal";
import type { Db } from "../db";
import { hexUidShape } from "../protocol";
import { Refusal } from "../services/ssh-access";
import { unscopedTunnelOwner } from "../services/tunnels";
import { findTunnel, thisInstance, tunnelStreamOptions } from "./tunnels";
import { failUpgrade, refuseUpgrade } from "./upgrade";

/** Instance-to-instance: a channel on a tunnel this instance holds, for a gateway on another. */
export const relayPath = "/internal/tunnel-channel";

type ChannelRequest = { deviceUid: string; sessionUid: string; ip: string; port: number };

const relayTimeoutMs = 10_000;

/** Where a device's tunnel is: on this instance, on another (its URL), or nowhere. */
export async function locateTunnel(db: Db, deviceUid: string): Promise<"here" | { instance: string } | undefined> {
  if (findTunnel(deviceUid)) return "here";
  const instance = await unscopedTunnelOwner(db, deviceUid);
  return instance && instance !== thisInstance() ? { instance } : undefined;
}

/**
 * Opens a forwarded-tcpip channel to the device for one session: on the local tunnel, or through
 * the instance that holds the tunnel (a WebSocket to its relay endpoint, with the internal secret).
 */
export async function openDeviceChannel(db: Db, request: ChannelRequest): Promise<Duplex> {
  const location = await locateTunnel(db, request.deviceUid);
  if (location === "here") {
    const tunnel = findTunnel(request.deviceUid);
    if (!tunnel) throw new Refusal("the device is offline");
    return tunnel.openChannel(request.sessionUid, request.ip, request.port);
  }
  if (!location) throw new Refusal("the device is offline");
  const query = new URLSearchParams({
    device: request.deviceUid,
    session: request.sessionUid,
    ip: request.ip,
    port: String(request.port),
  });
  const url = `${location.instance.replace(/^http/, "ws")}${relayPath}?${query}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      headers: { [internalSecretHeader]: internalSecret() },
      perMessageDeflate: false,
      handshakeTimeout: relayTimeoutMs,
    });
    socket.once("open", () => resolve(createWebSocketStream(socket, tunnelStreamOptions)));
    socket.once("unexpected-response", (_request, response) =>
      reject(new Refusal(`the tunnel's instance answered ${response.statusCode}`)),
    );
    socket.once("error", (error) => reject(new Refusal(`the tunnel's instance is unreachable: ${error.message}`)));
  });
}

/** The relay endpoint: another instance's gateway asks for a channel on a tunnel held here. */
export class ChannelRelayEndpoint {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });

  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    const secret = request.headers[internalSecretHeader];
    if (!isInternalSecret(typeof secret === "string" ? secret : null)) {
      return refuseUpgrade(socket, 401, "the internal secret is required");
    }
    const query = new URL(request.url ?? "", "http://local").searchParams;
    const tunnel = findTunnel(query.get("device") ?? "");
    const session = query.get("session") ?? "";
    if (!tunnel || !hexUidShape.test(session)) return refuseUpgrade(socket, 404, "no such tunnel here");
    let channel: ServerChannel;
    try {
      channel = await tunnel.openChannel(session, query.get("ip") ?? "", Number(query.get("port") ?? 0));
    } catch (error) {
      const message = "the device did not open a channel";
      return failUpgrade(socket, request, { status: 502, message, reason: message, cause: error });
    }
    this.sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const stream = createWebSocketStream(webSocket, tunnelStreamOptions);
      stream.on("error", () => webSocket.terminate());
      channel.on("error", () => channel.close());
      stream.pipe(channel).pipe(stream);
      stream.once("close", () => channel.close());
      channel.once("close", () => stream.destroy());
    });
  }
}
