import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import Docker from "dockerode";
import { z } from "zod";
import { getConfig } from "../config";
import {
  allowList,
  ConnectorAddressRefused,
  checkConnectorAddress,
  type Resolver,
  systemResolver,
} from "./connector-address";

/** Where and how to reach an engine: a connector's address, port and, for HTTPS, its TLS material in the clear. */
export type EngineTarget = {
  address: string;
  port: number;
  tls?: { ca: string; cert: string; key: string };
};

/** The most an engine's answer to one API call may weigh; a larger answer fails the call. */
export const maxAnswerBytes = 4 * 1024 * 1024;
const timeoutMs = 10_000;

/** The engine answered something that is not what the Docker Engine API says it answers. */
export class EngineAnswerError extends Error {}

type Dial = { allowed: string[]; resolve: Resolver };

const dialSettings = (): Dial => ({ allowed: getConfig().CONNECTOR_ALLOWED_CIDRS, resolve: systemResolver });

/**
 * Opens the connection to the engine: the address is resolved and checked here, at dial time, on
 * every connection (so a name that later resolves elsewhere is checked again), and the socket
 * goes to the address that was checked. Calls that answer a document count its bytes.
 */
function connect(target: EngineTarget, dial: Dial, isBounded: boolean): Promise<net.Socket> {
  return checkConnectorAddress(target.address, allowList(dial.allowed), dial.resolve).then(({ address }) => {
    const socket = target.tls
      ? tls.connect({
          host: address,
          port: target.port,
          // The certificate is checked against the name the connector was given, not the address.
          servername: net.isIP(target.address) ? undefined : target.address,
          ca: target.tls.ca,
          cert: target.tls.cert,
          key: target.tls.key,
          minVersion: "TLSv1.2",
        })
      : net.connect({ host: address, port: target.port });
    socket.setTimeout(timeoutMs, () => socket.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    if (isBounded) {
      let received = 0;
      socket.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxAnswerBytes) {
          socket.destroy(new EngineAnswerError(`the engine's answer is larger than ${maxAnswerBytes} bytes`));
        }
      });
    }
    return socket;
  });
}

type ConnectionCallback = (error: Error | null, socket?: net.Socket) => void;

/** An HTTP(S) agent whose every connection goes through `connect` (one connection per request). */
function guardedAgent(target: EngineTarget, dial: Dial, isBounded: boolean): http.Agent {
  const Base = target.tls ? https.Agent : http.Agent;
  const agent = new Base({ keepAlive: false });
  Object.assign(agent, {
    createConnection: (_options: unknown, callback: ConnectionCallback) => {
      connect(target, dial, isBounded).then(
        (socket) => callback(null, socket),
        (error: Error) => callback(error),
      );
      return undefined;
    },
  });
  return agent;
}

/**
 * A Docker Engine API client for the target (dockerode). `streams` is for calls whose answer is a
 * stream (exec): no size bound, the caller reads it as it comes.
 */
export function engineClient(target: EngineTarget, options: { streams?: boolean; dial?: Dial } = {}) {
  const dial = options.dial ?? dialSettings();
  const host = net.isIP(target.address) === 6 ? `[${target.address}]` : target.address;
  // docker-modem hands `agent` to every request it makes; @types/dockerode does not list it.
  const settings: Docker.DockerOptions & { agent: http.Agent } = {
    host,
    port: target.port,
    protocol: target.tls ? "https" : "http",
    agent: guardedAgent(target, dial, !options.streams),
    ...(options.streams ? {} : { timeout: timeoutMs }),
  };
  return new Docker(settings);
}

const count = z.number().int().min(0);
const text = z.string().max(4096);

/** The fields of the engine's `GET /info` that SPEC.md names, as the engine said them. */
const engineInfo = z.object({
  ID: text,
  Containers: count,
  ContainersRunning: count,
  ContainersPaused: count,
  ContainersStopped: count,
  Images: count,
  Driver: text,
  // Go's empty slices come as null: no entries.
  DriverStatus: z
    .array(z.array(text))
    .max(1000)
    .nullish()
    .transform((value) => value ?? []),
  Plugins: z.object({
    Volume: z
      .array(text)
      .max(1000)
      .nullish()
      .transform((value) => value ?? []),
    Network: z
      .array(text)
      .max(1000)
      .nullish()
      .transform((value) => value ?? []),
  }),
  ServerVersion: text.optional(),
  OperatingSystem: text.optional(),
  OSType: text.optional(),
  Architecture: text.optional(),
});
export type EngineInfo = z.infer<typeof engineInfo>;

const engineContainer = z.object({
  Id: z.string().regex(/^[0-9a-f]{64}$/),
  Names: z.array(text).max(100).nullish(),
  Image: text,
  State: text,
});
export type EngineContainer = z.infer<typeof engineContainer>;

function checked<T>(schema: z.ZodType<T>, answer: unknown, what: string): T {
  const result = schema.safeParse(answer);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new EngineAnswerError(
      `the engine's ${what} is not a Docker Engine API answer (${issue?.path.join(".")}: ${issue?.message})`,
    );
  }
  return result.data;
}

export async function readEngineInfo(engine: Docker): Promise<EngineInfo> {
  return checked(engineInfo, await engine.info(), "info");
}

const maxContainers = 5000;

/** Every container of the engine, running or not. */
export async function readEngineContainers(engine: Docker): Promise<EngineContainer[]> {
  return checked(
    z.array(engineContainer).max(maxContainers),
    await engine.listContainers({ all: true }),
    "container list",
  );
}

/** The plain sentence a connector's status shows for a failure to talk to its engine, and the state it means. */
export function describeEngineFailure(
  error: unknown,
  isTls: boolean,
): { state: "disconnected" | "error"; message: string } {
  if (error instanceof ConnectorAddressRefused || error instanceof EngineAnswerError) {
    return { state: "error", message: error.message };
  }
  const failure = error as { code?: string; message?: string; statusCode?: number };
  const code = failure.code ?? "";
  if (typeof failure.statusCode === "number") {
    return { state: "error", message: `the engine answered HTTP ${failure.statusCode}` };
  }
  if (code === "ECONNREFUSED") return { state: "disconnected", message: "connection refused" };
  if (code === "ETIMEDOUT") return { state: "disconnected", message: "timed out" };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { state: "disconnected", message: "address not found" };
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return { state: "disconnected", message: "host unreachable" };
  if (
    /SSL|TLS|CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME/.test(code) ||
    /SSL|TLS|certificate/i.test(failure.message ?? "")
  ) {
    return { state: "error", message: `TLS failure: ${failure.message ?? code}` };
  }
  if (code === "ECONNRESET" || /hang up/.test(failure.message ?? "")) {
    // Over TLS 1.3 an engine that refuses the client certificate closes the connection after the handshake.
    if (isTls)
      return { state: "error", message: "TLS failure: the engine closed the connection (client certificate refused?)" };
    return { state: "disconnected", message: "the engine closed the connection" };
  }
  return { state: "error", message: failure.message ?? "unknown failure" };
}

export type ExecOptions = {
  command: string[];
  user: string;
  env: string[];
  /** A terminal of this size; none: plain stdout and stderr. */
  size?: { rows: number; cols: number };
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
};

/** A running exec: its terminal's resize, and its exit code once it ended. */
export type RunningExec = { resize: (rows: number, cols: number) => Promise<void>; exitCode: Promise<number> };

const execExitPolls = 50;

/**
 * Runs a command in a container through the engine's exec API, attached: `stdin` goes in (its
 * end closes the command's input), the output comes out (one stream with a terminal, else stdout
 * and stderr apart).
 */
export async function execInContainer(
  target: EngineTarget,
  containerId: string,
  options: ExecOptions,
): Promise<RunningExec> {
  const engine = engineClient(target, { streams: true });
  const isTty = options.size !== undefined;
  const exec = await engine.getContainer(containerId).exec({
    Cmd: options.command,
    User: options.user,
    Env: options.env,
    Tty: isTty,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: isTty })) as NodeJS.ReadWriteStream;
  const resize = (rows: number, cols: number) => exec.resize({ h: rows, w: cols }).catch(() => {});
  // The terminal has its size before the first typed byte arrives (a `stty size` sees it).
  if (options.size) await resize(options.size.rows, options.size.cols);
  if (isTty) stream.pipe(options.stdout, { end: false });
  else engine.modem.demuxStream(stream, options.stdout, options.stderr);
  // Without a terminal the client's EOF closes the command's input; with one, as on a device, it
  // ends nothing (the shell exits when told to, or when the user's channel closes).
  options.stdin.pipe(stream, { end: !isTty });
  options.stdin.once("close", () => (stream as unknown as Duplex).destroy());
  const ended = new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
  const exitCode = ended.then(async () => {
    // The engine may answer the inspection a moment before it has the exit code.
    for (let poll = 0; poll < execExitPolls; poll++) {
      const state = await exec.inspect();
      if (!state.Running) return state.ExitCode ?? 255;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return 255;
  });
  return { resize, exitCode };
}
