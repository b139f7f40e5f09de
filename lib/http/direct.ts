import type { IncomingMessage, ServerResponse } from "node:http";
import { authDevice, authDeviceAlias } from "../handlers/agent";
import { maxBodyBytes } from "./body";

type Handler = (request: Request, next: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Routes served by server.ts without Next.js: the agents' heartbeats, thousands a second. */
const directRoutes: Record<string, Handler> = {
  "POST /api/devices/auth": authDevice,
  "POST /api/auth/device": authDeviceAlias,
};

export function directRoute(method: string | undefined, url: string | undefined): Handler | undefined {
  const path = (url ?? "").split("?", 1)[0];
  return directRoutes[`${method} ${path}`];
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    // Past the limit the route's own check answers 413; stop buffering here.
    if (size > maxBodyBytes + 1) break;
    chunks.push(chunk as Buffer);
  }
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

/** Runs a route handler on a Node request, as Next.js would, without its routing and rendering. */
export async function serveDirect(handler: Handler, request: IncomingMessage, response: ServerResponse) {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(", "));
    }
    const body = await readBody(request);
    const webRequest = new Request(`http://${request.headers.host ?? "localhost"}${request.url}`, {
      method: request.method,
      headers,
      body: body as BodyInit | undefined,
    });
    const answer = await handler(webRequest, { params: Promise.resolve({}) });
    response.statusCode = answer.status;
    answer.headers.forEach((value, name) => {
      response.setHeader(name, value);
    });
    response.end(Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    response.statusCode = 500;
    response.end(JSON.stringify({ message: "internal server error" }));
    throw error;
  }
}
