/**
 * Failures that say the database is out of reach (stopped, restarting, unreachable) rather than
 * anything about the statement: the request may work again in a moment, so it is answered 503.
 */

// Node's socket errors while connecting or talking to the server.
const socketErrors = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now (starting or stopping),
// query_canceled (the statement timeout of lib/db/index.ts: the server is too busy now); class 08
// is "connection exception".
const unavailableStates = new Set(["57P01", "57P02", "57P03", "57014"]);

// node-postgres reports a lost or impossible connection in plain errors, without a code.
const lostConnection =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection lost)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  // Drizzle wraps the driver's error as `cause`, a few levels deep at most.
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof candidate.code === "string" ? candidate.code : "";
    if (socketErrors.has(code) || unavailableStates.has(code) || code.startsWith("08")) return true;
    if (typeof candidate.message === "string" && lostConnection.test(candidate.message)) return true;
    current = candidate.cause;
  }
  return false;
}
