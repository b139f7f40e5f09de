import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { ApiError } from "../errors";
import { answerOf, writeAnswer, writeErrorAnswer } from "./answer";
import { findUnstorableText, parseJsonBody, readTextBody } from "./body";
import type { Operation } from "./operation";
import { validate } from "./route";
import { strictSourceOf } from "./source";

/**
 * An operation server.ts serves straight from Node's request and response, without Next.js and
 * without WHATWG Request/Response objects: the agents' heartbeats, thousands a second. Only
 * public operations without path parameters: the fast path checks no credential. `readBody` is
 * a hand-written check of the body with the rules of the operation's zod schema, answering
 * undefined for a body it refuses: zod then reads that one, to name the fields.
 */
export type DirectRoute<B extends z.ZodType> = {
  operation: Operation<{ kind: "public" }, undefined, undefined, B>;
  readBody: (body: unknown) => z.output<B> | undefined;
  handle: (context: { body: z.output<B>; source: string }) => Promise<unknown>;
};

type Served = {
  operation: Operation;
  readBody: (body: unknown) => unknown;
  handle: (context: { body: unknown; source: string }) => Promise<unknown>;
};

export function directRoute<B extends z.ZodType>({ operation, readBody, handle }: DirectRoute<B>): Served {
  const schema = operation.body;
  if (!schema) throw new Error(`${operation.id} has no body schema for the fast path to check`);
  return {
    operation,
    readBody: (body) => readBody(body) ?? validate(schema, body, "body"),
    handle: handle as Served["handle"],
  };
}

/** The lookup server.ts asks on every request: the direct route of a method and URL, if any. */
export function directRoutes(routes: Served[]) {
  const byKey = new Map(routes.map((route) => [`${route.operation.method} ${route.operation.path}`, route]));
  return (method: string | undefined, url: string | undefined) =>
    byKey.get(`${method} ${(url ?? "").split("?", 1)[0]}`);
}

/**
 * Serves a direct route: the checks, statuses, error bodies and response schema of
 * lib/http/route.ts. One chain of promises rather than an async function: every promise on this
 * path, thousands a second, also runs the hooks of Next.js's AsyncLocalStorage, and the chain
 * makes the fewest (docs/performance.md). Every failure is answered here.
 */
export function serveDirect(route: Served, request: IncomingMessage, response: ServerResponse): void {
  const fail = (error: unknown) => writeErrorAnswer(response, request, error);
  const url = request.url ?? "";
  const unstorable = url.includes("?") && findUnstorableText([...new URL(url, "http://direct").searchParams]);
  if (unstorable) {
    fail(new ApiError(400, `${unstorable} in the URL`));
    return;
  }
  readTextBody(request, request.headers["content-length"])
    .then((text) =>
      route.handle({ body: route.readBody(parseJsonBody(text)), source: strictSourceOf(request.headers) }),
    )
    .then((result) => writeAnswer(response, answerOf(route.operation, result)))
    .catch(fail);
}
