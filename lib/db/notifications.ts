import { errorText } from "../errors";
import { log } from "../log";

export type Listening = { close: () => Promise<void> };

const firstRetryMs = 1_000;
const maxRetryMs = 30_000;

/**
 * LISTENs on a PostgreSQL channel on a connection of its own (a pooled one would be handed to
 * other work): `onNotify` gets each payload. A lost connection is opened again (1 s doubling to
 * 30 s), and `onConnected` is called on each (re)connect: notifications sent meanwhile are lost,
 * so the listener catches up on what it may have missed.
 */
export async function listenToChannel(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onConnected: () => void,
): Promise<Listening> {
  const { Client } = await import("pg");
  let client: InstanceType<typeof Client> | undefined;
  let isClosed = false;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;

  const retry = () => {
    if (isClosed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(maxRetryMs, retryMs * 2);
  };

  const connect = async () => {
    const next = new Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 10_000 });
    next.on("notification", (message) => {
      if (message.channel === channel) onNotify(message.payload ?? "");
    });
    // A lost connection emits 'error' (and 'end'); without a handler the process would die.
    next.on("error", (error) => {
      log.warn("the event listener's database connection failed", { error: error.message });
      next.end().catch(() => undefined);
      retry();
    });
    next.on("end", retry);
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (error) {
      log.warn("listening for events failed", { error: errorText(error) });
      next.end().catch(() => undefined);
      retry();
      return;
    }
    if (isClosed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    retryMs = firstRetryMs;
    onConnected();
  };

  await connect();
  return {
    close: async () => {
      isClosed = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => undefined);
    },
  };
}
