import { errorText } from "../errors";
import { log } from "../log";
import { apiHeaders } from "./answer";

const encoder = new TextEncoder();

/**
 * A 200 response whose body is `chunks`, pulled one at a time as the client reads: a slow
 * client slows the source down instead of the server buffering for it. A failure half-way can
 * no longer change the status: it is logged and the body is cut short, so the client sees an
 * incomplete answer rather than a complete-looking one.
 */
export function streamedResponse(
  request: Request,
  chunks: AsyncIterable<string>,
  headers: Record<string, string>,
): Response {
  const iterator = chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      } catch (error) {
        log.error("a streamed answer failed half-way", {
          method: request.method,
          path: new URL(request.url).pathname,
          error: errorText(error),
        });
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: { ...apiHeaders, ...headers } });
}
