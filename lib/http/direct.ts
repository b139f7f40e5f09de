import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { ApiError } from "../errors";
import { answerOf, writeAnswer, writeErrorAnswer } from "./answer";
import { findUnstorableText, onTextBody, parseJsonBody } from "./body";
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
  /** A value when it can answer at once (a steady heartbeat), a promise when it must wait. */
  handle: (context: { body: z.output<B>; source: string }) => unknown;
};

type Served = {
  operation: Operation;
  readBody: (body: unknown) => unknown;
  handle: (context: { body: unknown; source: string }) => unknown;
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
 * lib/http/route.ts. Callbacks, and a promise only where the handler returns one: every promise
 * on this path, thousands a second, also runs the hooks of Next.js's AsyncLocalStorage, and a
 * steady heartbeat makes none (docs/performance.md). Every failure is answered here.
 */
export function serveDirect(route: Served, request: IncomingMessage, response: ServerResponse): void {
  const fail = (error: unknown) => writeErrorAnswer(response, request, error);
  const url = request.url ?? "";
  const unstorable = url.includes("?") && findUnstorableText([...new URL(url, "http://direct").searchParams]);
  if (unstorable) {
    fail(new ApiError(400, `${unstorable} in the URL`));
    return;
  }
  const answer = (result: unknown) => {
    try {
      writeAnswer(response, answerOf(route.operation, result));
    } catch (error) {
      fail(error);
    }
  };
  const handleText = (text: string) => {
    let result: unknown;
    try {
      result = route.handle({ body: route.readBody(parseJsonBody(text)), source: strictSourceOf(request.headers) });
    } catch (error) {
      fail(error);
      return;
    }
    if (result instanceof Promise) result.then(answer, fail);
    else answerSoon(() => answer(result));
  };
  onTextBody(request, request.headers["content-length"], handleText, fail);
}

const readyAnswers: (() => void)[] = [];

/**
 * Writes an answer ready at once after the event loop has read every request that is ready:
 * answers written together cost the kernel fewer wakeups of the clients than one at a time.
 */
function answerSoon(write: () => void) {
  if (readyAnswers.push(write) === 1) setImmediate(writeReadyAnswers);
}

function writeReadyAnswers() {
  for (const write of readyAnswers.splice(0)) write();
}
