import type { Readable } from "node:stream";
import { ApiError, badRequest } from "../errors";

export const maxBodyBytes = 1024 * 1024;

// Past the limit the rest of the body stays unread on the socket: close it rather than reuse it.
const tooLarge = () => new ApiError(413, "request body is larger than 1 MB", { connection: "close" });

/**
 * Reads a JSON body of at most 1 MB; empty or absent means `{}`. One reader for both paths:
 * lib/http/direct.ts hands it Node's request, the route wrapper its WHATWG stream as a Node
 * stream (`Readable.from`). Events, not an async iterator: the iterator's machinery cost the
 * heartbeat path about a tenth of its CPU per request.
 */
export async function readJsonBody(body: Readable | null, declaredLength: string | null | undefined) {
  if (Number(declaredLength ?? "0") > maxBodyBytes) throw tooLarge();
  if (!body) return {};
  return parseJsonBody(await readText(body));
}

function readText(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let isEnded = false;
    body.on("data", (chunk: Uint8Array) => {
      // Past the limit the rest is dropped as it comes, until the connection closes.
      if (size > maxBodyBytes) return;
      size += chunk.byteLength;
      if (size > maxBodyBytes) reject(tooLarge());
      else chunks.push(chunk);
    });
    body.on("end", () => {
      isEnded = true;
      // One chunk (a heartbeat's whole body, as a rule) is decoded where it lies, not copied first.
      const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
      resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
    });
    // A client that hangs up before the end of its body gets no answer, but the promise must
    // settle. "close" also comes after every complete body: no error is built for those.
    const cutShort = () => reject(new ApiError(400, "request body cut short"));
    body.on("error", cutShort);
    body.on("close", () => {
      if (!isEnded) cutShort();
    });
  });
}

/** A request body's text as JSON; empty means `{}`. NUL characters are refused anywhere. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  // Valid JSON holds a NUL only as the escape \u0000: without one, no need to walk the value.
  if (text.includes("\\u0000") && containsNul(value)) throw badRequest("request body contains a NUL character");
  return value;
}

export function containsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === "object") {
    return Object.entries(value).some(([key, item]) => key.includes("\u0000") || containsNul(item));
  }
  return false;
}
