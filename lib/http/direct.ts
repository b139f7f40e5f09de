import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { ApiError, errorText } from "../errors";
import { authDeviceDirect } from "../handlers/agent";
import { log } from "../log";
import { containsNul, maxBodyBytes, parseJsonBody } from "./body";
import { apiHeaders } from "./route";
import { peerHeader, sourceOf } from "./source";

/** What a direct handler gets: the JSON body, the client's address and the request's headers. */
export type DirectContext = { body: unknown; source: string; headers: IncomingHttpHeaders };
export type DirectHandler = (context: DirectContext) => Promise<unknown>;

/**
 * Routes server.ts serves straight from Node's request and response, without Next.js and
 * without WHATWG Request/Response objects: the agents' heartbeats, thousands a second. Their
 * app/ route files serve the same operations through lib/http/route.ts.
 */
const directRoutes: Record<string, DirectHandler> = {
  "POST /api/devices/auth": authDeviceDirect,
  "POST /api/auth/device": authDeviceDirect,
};

export function directRoute(method: string | undefined, url: string | undefined): DirectHandler | undefined {
  const path = (url ?? "").split("?", 1)[0];
  return directRoutes[`${method} ${path}`];
}

const tooLarge = () => new ApiError(413, "request body is larger than 1 MB", { connection: "close" });

/** The body's text, refused with 413 past the size limit (the connection is closed, not reused). */
function readText(request: IncomingMessage): Promise<string> {
  if (Number(request.headers["content-length"] ?? "0") > maxBodyBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      if (size > maxBodyBytes) return;
      size += chunk.length;
      if (size > maxBodyBytes) reject(tooLarge());
      else chunks.push(chunk);
    });
    request.on("end", () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString()),
    );
    request.on("error", reject);
    // A client that hangs up before the end of its body gets no answer; the promise must settle.
    // "close" also comes after every complete request: no error is built for those.
    request.on("close", () => {
      if (!request.complete) reject(new ApiError(400, "request body cut short"));
    });
  });
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body ?? {});
  response.writeHead(status, {
    ...apiHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Serves a direct route: the same checks, statuses and error bodies as lib/http/route.ts. */
export async function serveDirect(handler: DirectHandler, request: IncomingMessage, response: ServerResponse) {
  try {
    const url = request.url ?? "";
    if (url.includes("?") && containsNul([...new URL(url, "http://direct").searchParams])) {
      throw new ApiError(400, "NUL character in the URL");
    }
    const body = parseJsonBody(await readText(request));
    const source = sourceOf(
      request.headers[peerHeader] as string | undefined,
      request.headers["x-real-ip"] as string | undefined,
    );
    send(response, 200, await handler({ body, source, headers: request.headers }));
  } catch (error) {
    if (error instanceof ApiError) return send(response, error.status, error.body(), error.headers);
    const requestId = randomUUID();
    log.error("unhandled error", {
      requestId,
      method: request.method,
      path: request.url,
      error: error instanceof Error ? (error.stack ?? error.message) : errorText(error),
    });
    send(response, 500, { message: "internal server error", request_id: requestId });
  }
}
