import { inject } from "vitest";

/** One Server-Sent Event as `GET /api/events` sends it, with when this process read it. */
export type ReceivedEvent = {
  id: string | undefined;
  event: string;
  data: { type: string; uid: string; at: string; patch: Record<string, unknown> };
  receivedAt: number;
};

export type EventStream = {
  status: number;
  headers: Headers;
  /** Every event read so far, in order. */
  events: ReceivedEvent[];
  /** How many `: ping` comments came. */
  pings: () => number;
  /** The first event, read so far or to come, that matches; rejects after `seconds`. */
  next: (match: (event: ReceivedEvent) => boolean, seconds?: number) => Promise<ReceivedEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close: () => void;
};

/**
 * The event stream over real HTTP, read as a browser's EventSource reads it: fetch, then the
 * body's chunks parsed into events. Resolves once the response's headers are in; a refused
 * request (no event stream) resolves too, with its status and no events.
 */
export async function openEventStream(
  options: { token?: string; apiKey?: string; lastEventId?: string; baseUrl?: string } = {},
): Promise<EventStream> {
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const abort = new AbortController();
  const response = await fetch(`${options.baseUrl ?? inject("baseUrl")}/api/events`, {
    headers,
    signal: abort.signal,
  });
  const events: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  let pings = 0;
  const isStream = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
  const read = async () => {
    if (!isStream || !response.body) {
      await response.body?.cancel();
      return;
    }
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (line === ": ping") pings += 1;
            const colon = line.indexOf(":");
            if (colon <= 0) continue;
            fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ""));
          }
          const data = fields.get("data");
          if (data === undefined) continue;
          events.push({
            id: fields.get("id"),
            event: fields.get("event") ?? "message",
            data: JSON.parse(data),
            receivedAt: Date.now(),
          });
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // closed by the test
    }
  };
  const ended = read();
  const next = (match: (event: ReceivedEvent) => boolean, seconds = 20) =>
    new Promise<ReceivedEvent>((resolve, reject) => {
      const check = () => {
        const found = events.find(match);
        if (!found) return false;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = () => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        const seen = events.map((event) => `${event.id} ${event.event} ${event.data.uid.slice(0, 8)}`).join("\n");
        reject(new Error(`no matching event within ${seconds} s; received:\n${seen}`));
      }, seconds * 1000);
      if (!check()) waiters.add(wake);
    });
  return {
    status: response.status,
    headers: response.headers,
    events,
    pings: () => pings,
    next,
    ended,
    close: () => abort.abort(),
  };
}
