import { createServer, type Server } from "node:net";
import { log } from "../lib/log";
import { DeviceServer } from "./device-server";
import { loadDeviceKey, ServerKeyPin } from "./identity";
import type { AgentOptions } from "./options";
import { readDeviceInfo, readPrimaryMac } from "./os-info";
import { Registration } from "./registration";
import { Tunnel } from "./tunnel";

/**
 * The agent: heartbeats, the tunnel and the device's SSH server, started and stopped together. The
 * REST heartbeat runs only while the tunnel is down: a connected tunnel keeps the device online.
 */
export class Agent {
  readonly tunnel: Tunnel;
  readonly registration: Registration;
  private readonly deviceServer: DeviceServer;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private listener: Server | undefined;

  constructor(private readonly options: AgentOptions) {
    const deviceKey = loadDeviceKey(options.dataDir, options.privateKeyFile);
    const serverKey = new ServerKeyPin(options.dataDir, options.serverHostKey);
    this.deviceServer = new DeviceServer(deviceKey.parsed, serverKey);
    const body = {
      info: readDeviceInfo(),
      hostname: options.hostname,
      identity: { mac: readPrimaryMac() },
      public_key: deviceKey.publicPem,
      tenant_id: options.tenantId,
    };
    this.registration = new Registration(options.serverUrl, body, () => this.tunnel.sessions(), deviceKey.privatePem);
    this.tunnel = new Tunnel(options.serverUrl, this.registration, deviceKey, serverKey, this.deviceServer);
  }

  async start() {
    log.info("agent starting", { server: this.options.serverUrl, hostname: this.options.hostname });
    this.heartbeatTimer = setInterval(() => {
      // While the tunnel is up it is the device's heartbeat (the server marks its devices seen).
      if (this.tunnel.phase === "connected") return;
      // Failures are logged by the registration; the next beat tries again.
      this.registration.authenticate().catch(() => {});
    }, this.options.heartbeatMs);
    this.tunnel.start();
    if (this.options.listen) await this.listen(this.options.listen.host, this.options.listen.port);
  }

  /** Serves the device's SSH server on a local TCP address too (--listen). */
  private listen(host: string, port: number): Promise<void> {
    const listener = createServer((socket) => {
      socket.on("error", () => socket.destroy());
      void this.deviceServer.serve(socket, { ip: socket.remoteAddress ?? "", port: socket.remotePort ?? 0 });
    });
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(port, host, () => {
        log.info("serving SSH directly", { address: `${host}:${port}` });
        resolve();
      });
    });
  }

  /**
   * Stops the heartbeats, then closes the tunnel once the last heartbeat is answered: the server
   * takes the device offline when the tunnel closes, and a heartbeat that arrived after that
   * would bring it back online.
   */
  async stop() {
    clearInterval(this.heartbeatTimer);
    this.listener?.close();
    await this.registration.settled(1_000);
    this.tunnel.stop();
  }
}
