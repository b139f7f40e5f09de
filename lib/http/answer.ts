import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { ZodError } from "zod";
import { isDatabaseUnavailable } from "../db/unavailable";
import { ApiError, errorText } from "../errors";
import { log } from "../log";
import { type Page, Reply } from "../results";
import type { Operation } from "./operation";

/**
 * An API answer before it is written, the same for both HTTP paths: the route wrapper makes a
 * WHATWG Response of it, server.ts and lib/http/direct.ts write it to Node's response.
 */
export type Answer = { status: number; body: unknown; headers: Record<string, string> };

export const apiHeaders = { "cache-control": "no-store", "x-content-type-options": "nosniff" };

/** The answer to what a handler returned: its status and headers, `X-Total-Count`, the response schema. */
export function answerOf(operation: Operation, result: unknown): Answer {
  const reply = result instanceof Reply ? result : new Reply(result);
  const headers = { ...reply.init.headers };
  let body = reply.body;
  if (operation.isList) {
    const page = body as Page<unknown>;
    headers["x-total-count"] = String(page.total);
    body = operation.response ? page.items.map((item) => operation.response?.parse(item)) : page.items;
  } else if (operation.response && body !== undefined) {
    body = operation.response.parse(body);
  }
  return { status: reply.init.status ?? 200, body, headers };
}

/** Seconds a client is asked to wait before trying again while the database is away. */
const databaseRetrySeconds = 5;

/**
 * The answer to a failure: an ApiError's own status, body and headers; the database out of reach
 * is a 503 (a PostgreSQL restart, say: the request can simply be sent again); anything else is a
 * 500 whose body carries only a request id, the details going to the log under that id.
 */
export function errorAnswer(error: unknown, request: { method?: string; path: string }): Answer {
  if (error instanceof ApiError) return { status: error.status, body: error.body(), headers: error.headers };
  if (isDatabaseUnavailable(error)) {
    log.warn("database unavailable", { method: request.method, path: request.path, error: errorText(error) });
    return {
      status: 503,
      body: { message: "the database is unavailable; try again shortly" },
      headers: { "retry-after": String(databaseRetrySeconds) },
    };
  }
  const requestId = randomUUID();
  // Request input is checked with safeParse: a ZodError comes from a response schema.
  const reason = error instanceof ZodError ? "response failed its schema" : "unhandled error";
  log.error(reason, {
    requestId,
    method: request.method,
    path: request.path,
    error: error instanceof Error ? (error.stack ?? error.message) : errorText(error),
  });
  return { status: 500, body: { message: "internal server error", request_id: requestId }, headers: {} };
}

/** Writes an answer to Node's response, for what server.ts answers without Next.js. */
export function writeAnswer(response: ServerResponse, { status, body, headers }: Answer) {
  if (status === 204) {
    response.writeHead(status, { ...apiHeaders, ...headers }).end();
    return;
  }
  const text = JSON.stringify(body ?? {});
  response.writeHead(status, {
    ...apiHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
