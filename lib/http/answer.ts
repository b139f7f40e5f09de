import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
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

/** The request a failure is logged with. */
export type RequestLine = { method?: string; path: string };

export const requestLineOf = (request: IncomingMessage): RequestLine => ({
  method: request.method,
  path: (request.url ?? "").split("?", 1)[0] ?? "",
});

/**
 * A 5xx whose body carries only a message and a request id: what went wrong goes to the log
 * under that id, so a client's report can be matched to it.
 */
export function serverErrorAnswer(
  request: RequestLine,
  fault: { reason: string; cause: unknown; status?: number; message?: string; headers?: Record<string, string> },
): Answer {
  const requestId = randomUUID();
  const { cause } = fault;
  log.error(fault.reason, {
    requestId,
    method: request.method,
    path: request.path,
    error: cause instanceof Error ? (cause.stack ?? cause.message) : errorText(cause),
  });
  const body = { message: fault.message ?? "internal server error", request_id: requestId };
  return { status: fault.status ?? 500, body, headers: fault.headers ?? {} };
}

/** Seconds a client is asked to wait before trying again while the database is away. */
const databaseRetrySeconds = 5;

/**
 * The answer to a failure: an ApiError's own status, body and headers; the database out of reach
 * is a 503 (a PostgreSQL restart, say: the request can simply be sent again); anything else is a
 * 500 (serverErrorAnswer).
 */
export function errorAnswer(error: unknown, request: RequestLine): Answer {
  if (error instanceof ApiError) return { status: error.status, body: error.body(), headers: error.headers };
  if (isDatabaseUnavailable(error)) {
    return serverErrorAnswer(request, {
      reason: "database unavailable",
      cause: error,
      status: 503,
      message: "the database is unavailable; try again shortly",
      headers: { "retry-after": String(databaseRetrySeconds) },
    });
  }
  // Request input is checked with safeParse: a ZodError comes from a response schema.
  const reason = error instanceof ZodError ? "response failed its schema" : "unhandled error";
  return serverErrorAnswer(request, { reason, cause: error });
}

/**
 * Answers a failure on Node's response (errorAnswer). Once the headers are out there is no
 * answer left to give: the failure is logged all the same, and the connection cut.
 */
export function writeErrorAnswer(response: ServerResponse, request: IncomingMessage, error: unknown) {
  const answer = errorAnswer(error, requestLineOf(request));
  if (response.headersSent) response.destroy();
  else writeAnswer(response, answer);
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
