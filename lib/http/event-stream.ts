import { processSingleton } from "../process-state";
import { apiHeaders } from "./answer";

/** One Server-Sent Event: `id:` (when given), `event:` and one `data:` line of JSON. */
export type SseMessage = { id?: number; event: string; data: unknown };

export type SseWriter = {
  write: (message: SseMessage) => void;
  /** Ends the response; the client reconnects with `Last-Event-ID`. */
  end: () => void;
};

const pingEveryMs = 20_000;
/** What a client that reconnects waits before it does (the `retry:` field). */
const retryMs = 2_000;
/** Messages queued for a client that does not read: past this the stream ends, and the client, reconnecting, is sent what it missed. */
const maxQueued = 5_000;

const encoder = new TextEncoder();

/** The process's open streams, so that a stopping server can end them (server.ts). */
const openStreams = () => processSingleton("event streams", () => new Set<() => void>());

/** Ends every open event stream of this process (the server is stopping). */
export function endEventStreams() {
  for (const end of [...openStreams()]) end();
}

export const formatSse = ({ id, event, data }: SseMessage) =>
  `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A `text/event-stream` response to `request`: `open` starts the source with a writer and returns the
 * function that stops it. A `: ping` comment goes out every 20 s so that proxies and clients
 * see the connection alive. The source stops when the client goes away (the request's signal,
 * or the body cancelled), when the writer ends it, or when the server stops. A failure of `open`
 * is thrown, before any byte is sent, for the route wrapper to answer.
 */
export async function eventStreamResponse(
  request: Request,
  open: (writer: SseWriter) => Promise<() => void>,
): Promise<Response> {
  const { signal } = request;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let stop: (() => void) | undefined;
  let isDone = false;
  const streams = openStreams();
  const finish = () => {
    if (isDone) return;
    isDone = true;
    streams.delete(finish);
    clearInterval(ping);
    signal.removeEventListener("abort", finish);
    stop?.();
    try {
      controller?.close();
    } catch {
      // already closed or cancelled
    }
  };
  const push = (text: string) => {
    if (isDone || !controller) return;
    if ((controller.desiredSize ?? 0) < -maxQueued) {
      finish();
      return;
    }
    controller.enqueue(encoder.encode(text));
  };
  const body = new ReadableStream<Uint8Array>({
    start: (started) => {
      controller = started;
    },
    cancel: finish,
  });
  const ping = setInterval(() => push(": ping\n\n"), pingEveryMs);
  ping.unref();
  streams.add(finish);
  signal.addEventListener("abort", finish);
  // The first bytes go out at once, so the client sees the stream open.
  push(`retry: ${retryMs}\n: connected\n\n`);
  try {
    stop = await open({ write: (message) => push(formatSse(message)), end: finish });
  } catch (error) {
    finish();
    throw error;
  }
  // HEAD gets the headers only: nothing would ever be read.
  if (request.method === "HEAD") finish();
  if (isDone) stop();
  return new Response(body, {
    headers: {
      ...apiHeaders,
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: Next.js's compression would hold the events back.
      "cache-control": "no-store, no-transform",
      // Proxies such as nginx pass the events on as they come.
      "x-accel-buffering": "no",
    },
  });
}
