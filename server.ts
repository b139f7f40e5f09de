// First: V8 flags apply to what is allocated after them.
import "./lib/v8-tuning";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import next from "next";
import { operations } from "./lib/api";
import * as agentApi from "./lib/api/agent";
import { internalSecret } from "./lib/auth/internal";
import { buildAgentInstall } from "./lib/build/agent-bundle";
import { ConfigError, getConfig, publicUrl } from "./lib/config";
import { openDatabase, setDatabase } from "./lib/db";
import { type Listening, listenToChannel } from "./lib/db/notifications";
import { errorText } from "./lib/errors";
import { writeAnswer, writeErrorAnswer } from "./lib/http/answer";
import { directRoute, directRoutes, serveDirect } from "./lib/http/direct";
import { endEventStreams } from "./lib/http/event-stream";
import { lingerOnEarlyClose } from "./lib/http/linger";
import { apiRefusals, malformedPathAnswer } from "./lib/http/paths";
import { peerHeader } from "./lib/http/source";
import { log } from "./lib/log";
import { listenBacklog, reportDescriptorLimit, startHealthReport } from "./lib/process-health";
import { tunnelPath } from "./lib/protocol";
import { DataDirBusyError, removeServerFile, writeServerFile } from "./lib/runtime";
import { readAuthDeviceBody } from "./lib/schemas/agent";
import { authenticateDevice } from "./lib/services/agent";
import { provideAgentInstall } from "./lib/services/agent-install";
import { eventChannel, hub } from "./lib/services/events";
import { heartbeatWriter } from "./lib/services/heartbeats";
import { unscopedRunsAutovacuum } from "./lib/services/maintenance";
import { setSshPort } from "./lib/services/service";
import { unscopedEndOrphanedSessions } from "./lib/services/sessions";
import { isSetUp, setupLink } from "./lib/services/setup";
import { ChannelRelayEndpoint, relayPath } from "./lib/ssh/device-channel";
import { defaultGatewayOptions, SshGateway } from "./lib/ssh/gateway";
import { hostPublicLine } from "./lib/ssh/host-key";
import { closeSessionsEndedElsewhere } from "./lib/ssh/live-session";
import { setInstance, TunnelEndpoint, thisInstance, tunnelLivenessMs } from "./lib/ssh/tunnels";
import { failUpgrade, refuseUpgrade } from "./lib/ssh/upgrade";
import { terminalPath, WebTerminalEndpoint } from "./lib/ssh/web-terminal";
import { startConnectorWorker, startTimers } from "./lib/timers";

// Headers only the server may set: whatever a client sends under these names is dropped.
const internalHeaders = [peerHeader, "x-tenant-id", "x-role", "x-id", "x-username", "x-middleware-subrequest"];

function stampRequest(request: IncomingMessage) {
  for (const name of internalHeaders) delete request.headers[name];
  request.headers[peerHeader] = request.socket.remoteAddress ?? "";
}

async function main() {
  // When whatever reads the output goes away (a closed pipe), every write fails (EPIPE). An
  // unhandled stream error is reported by the uncaught-error handler Next.js installs, on the
  // same closed stream, which fails again: a loop that held a core and kept SIGTERM's stop from
  // ever finishing. The server goes on without its output instead.
  for (const output of [process.stdout, process.stderr]) output.on("error", () => undefined);
  const isDev = process.argv.includes("--dev");
  const config = getConfig();
  reportDescriptorLimit();
  const database = await openDatabase(config);
  setDatabase(database);
  // Local tools (admin CLI) read the internal secret from DATA_DIR: make sure it exists.
  internalSecret();
  // The agent's installer and bundle (GET /install.sh), made by esbuild on the first download.
  provideAgentInstall(() => buildAgentInstall(process.cwd(), publicUrl(config)));
  // Live events (GET /api/events): this process hands out every event written from now on, its
  // own at once and, on PostgreSQL, other instances' when notified (docs/scaling.md).
  await hub().start(database.db);
  let listening: Listening | undefined;
  if (config.DATABASE_URL) {
    listening = await listenToChannel(
      config.DATABASE_URL,
      eventChannel,
      (payload) => hub().notified(payload),
      () => hub().poke(),
    );
  }

  // Next.js hooks its own upgrade handler (which ends every upgrade to one of its routes, such as
  // /ws/ssh) on this emitter instead of the server: it gets only the upgrades served nowhere else.
  const nextUpgrades = new EventEmitter();
  // Next.js fetches the page a server action redirects to from this process itself: the address
  // it listens on, a loopback one where it listens on every interface.
  const ownHost = { "0.0.0.0": "127.0.0.1", "::": "::1" }[config.HOST] ?? config.HOST;
  const app = next({
    dev: isDev,
    dir: process.cwd(),
    hostname: ownHost,
    port: config.PORT,
    httpServer: nextUpgrades as unknown as Server,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  // The agents' call, every device every 30 s, skips Next.js (lib/http/direct.ts): its two
  // operations have no app/ route file.
  const directRouteOf = directRoutes(
    [agentApi.authDevice, agentApi.authDeviceAlias].map((operation) =>
      directRoute({
        operation,
        readBody: readAuthDeviceBody,
        handle: ({ body, source }) => authenticateDevice(database.db, body, source),
      }),
    ),
  );
  const refusalOf = apiRefusals(operations);
  // A client must send its headers within 20 s and its whole request within 60 s (checked every
  // 5 s): a slow client cannot hold a connection for Node's default 5 minutes (docs/resilience.md).
  const server = createServer(
    { headersTimeout: 20_000, requestTimeout: 60_000, connectionsCheckingInterval: 5_000 },
    (request, response) => {
      stampRequest(request);
      const direct = directRouteOf(request.method, request.url);
      if (direct) {
        serveDirect(direct, request, response);
        return;
      }
      // Unknown /api paths and methods answer JSON, not Next.js's HTML page or empty 405.
      const refusal = malformedPathAnswer(request.url) ?? refusalOf(request.method, request.url);
      if (refusal) writeAnswer(response, refusal);
      // A failure that escapes still gets its 500 and request id; left unhandled, it would end the process.
      else handle(request, response).catch((error: unknown) => writeErrorAnswer(response, request, error));
    },
  );
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_SECONDS * 1000;
  lingerOnEarlyClose(server);

  // WebSockets on the API port: the agents' tunnels and the browser terminal.
  const tunnelEndpoint = new TunnelEndpoint(database.db, config.TUNNEL_HANDSHAKES_MAX);
  const terminalEndpoint = new WebTerminalEndpoint(database.db);
  const upgrades: Record<string, { handleUpgrade: typeof tunnelEndpoint.handleUpgrade }> = {
    [tunnelPath]: tunnelEndpoint,
    [terminalPath]: terminalEndpoint,
    [relayPath]: new ChannelRelayEndpoint(),
  };
  server.on("upgrade", (request, socket, head) => {
    stampRequest(request);
    const path = (request.url ?? "").split("?", 1)[0] ?? "";
    const upgrade = upgrades[path]?.handleUpgrade(request, socket, head);
    if (!upgrade) {
      if (!nextUpgrades.emit("upgrade", request, socket, head))
        refuseUpgrade(socket, 404, "no WebSocket endpoint here");
      return;
    }
    upgrade.catch((error: unknown) =>
      failUpgrade(socket, request, { reason: "WebSocket upgrade failed", cause: error }),
    );
  });

  // The gateway listens first, so that the API, once it answers, tells the gateway's port.
  const gateway = new SshGateway(database.db, {
    ...defaultGatewayOptions,
    handshakeMs: config.SSH_LOGIN_GRACE_SECONDS * 1000,
    maxUnauthenticatedPerSource: config.SSH_MAX_UNAUTHENTICATED_PER_SOURCE,
  });
  const sshPort = await gateway.listen(config.SSH_PORT, config.HOST);
  setSshPort(sshPort);
  log.info("SSH gateway host key", { key: hostPublicLine() });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: config.PORT, host: config.HOST, backlog: listenBacklog }, resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const localHost = config.HOST === "0.0.0.0" || config.HOST === "::" ? "127.0.0.1" : config.HOST;
  setInstance(config.INSTANCE_URL?.replace(/\/$/, "") ?? `http://${localHost}:${port}`);
  // On the embedded database this is the only instance: nothing it did not start is live.
  const isOnlyInstance = database.kind === "pglite";
  await tunnelEndpoint.forgetStaleOwnership(isOnlyInstance);
  if (isOnlyInstance) await unscopedEndOrphanedSessions(database.db);
  writeServerFile(config.DATA_DIR, { pid: process.pid, url: `http://${localHost}:${port}` });
  log.info("listening", {
    url: `http://${localHost}:${port}`,
    console: publicUrl(config),
    host: config.HOST,
    port,
    sshPort,
    database: database.kind,
  });
  if (!(await isSetUp(database.db))) {
    log.info("no account yet: create the first one on the setup page (open the url in a browser)", {
      console: publicUrl(config),
      url: setupLink(),
      again: "npm run cli -- setup link",
      ...(config.PUBLIC_URL ? {} : { hint: "set PUBLIC_URL to the address people and devices reach the service at" }),
    });
  }

  const runsAutovacuum = await unscopedRunsAutovacuum(database.db, database.kind);
  if (database.kind === "postgres" && !runsAutovacuum) {
    log.warn("autovacuum is off on the PostgreSQL server: this server vacuums and analyzes its own tables", {
      hint: "turn autovacuum on (autovacuum = on in postgresql.conf); docs/scaling.md",
    });
  }
  const timers = [
    ...startTimers(database.db, config, { runsAutovacuum, isReconnecting: () => tunnelEndpoint.isCrowded }),
    ...(config.EDITION === "cloud" ? [startConnectorWorker(database.db, config, thisInstance())] : []),
    startHealthReport(config.HEALTH_REPORT_SECONDS),
    // Tunnels of devices rejected, removed or deleted elsewhere (another instance, a deleted namespace).
    setInterval(() => {
      tunnelEndpoint.sweep().catch((error: unknown) => log.warn("tunnel sweep failed", { error: errorText(error) }));
    }, 30_000),
    // The tunnels are their devices' heartbeats.
    setInterval(() => {
      tunnelEndpoint
        .refreshLiveness()
        .catch((error: unknown) => log.warn("tunnel liveness failed", { error: errorText(error) }));
    }, tunnelLivenessMs()),
    // Events of other instances whose notification was lost (PostgreSQL only: one instance otherwise).
    ...(listening ? [setInterval(() => hub().poke(), 5_000)] : []),
    // Sessions closed through another instance's API.
    setInterval(() => {
      closeSessionsEndedElsewhere(database.db).catch((error: unknown) =>
        log.warn("session sweep failed", { error: errorText(error) }),
      );
    }, 30_000),
  ];

  let isStopping = false;
  const stop = (signal: string) => {
    if (isStopping) return;
    isStopping = true;
    log.info("stopping", { signal });
    for (const timer of timers) clearInterval(timer);
    // Stop accepting, let in-flight requests finish, then close the database.
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    // Event streams and WebSockets are no requests to wait for: they end now.
    endEventStreams();
    const sessionsEnded = Promise.all([gateway.close(), terminalEndpoint.closeAll()]);
    const tunnelsClosed = tunnelEndpoint
      .closeAll()
      .catch((error: unknown) => log.warn("closing the tunnels failed", { error: errorText(error) }));
    server.close(async () => {
      clearTimeout(force);
      await tunnelsClosed;
      // Session rows are ended before the database closes (a client that does not answer is cut off after 5 s).
      await sessionsEnded;
      // The steady heartbeats answered in the last second get their stamps.
      const writer = heartbeatWriter(database.db);
      await writer.flush();
      log.info("heartbeat totals", writer.totals);
      hub().stop();
      await listening?.close();
      await database
        .close()
        .catch((error: unknown) => log.warn("closing the database failed", { error: String(error) }));
      removeServerFile(config.DATA_DIR);
      log.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirBusyError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    log.error("start failed", { error: error instanceof Error ? (error.stack ?? error.message) : errorText(error) });
  }
  process.exit(1);
});
