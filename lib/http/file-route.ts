import type { FileReply } from "../results";
import { apiHeaders, errorAnswer } from "./answer";

/**
 * A route handler answering a file made by `load` (the agent's installer and bundle); a failure
 * answers as every other: a 5xx `{message, request_id}`, the error logged under that id.
 */
export function fileRoute(load: () => Promise<FileReply>) {
  return async (request: Request): Promise<Response> => {
    try {
      const { body, headers } = await load();
      const content = typeof body === "string" ? body : new Uint8Array(body);
      return new Response(content, { status: 200, headers: { "x-content-type-options": "nosniff", ...headers } });
    } catch (error) {
      const { status, body, headers } = errorAnswer(error, {
        method: request.method,
        path: new URL(request.url).pathname,
      });
      return Response.json(body ?? {}, { status, headers: { ...apiHeaders, ...headers } });
    }
  };
}
