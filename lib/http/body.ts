import type { Readable } from "node:stream";
import { ApiError, badRequest } from "../errors";

const maxBodyBytes = 1024 * 1024;

// Past the limit the rest of the body stays unread on the socket: close it rather than reuse it.
const tooLarge = () => new ApiError(413, "request body is larger than 1 MB", { connection: "close" });

/**
 * Reads a JSON body of at most 1 MB; empty or absent means `{}`. One reader for both paths:
 * lib/http/direct.ts hands it Node's request, the route wrapper its WHATWG stream as a Node
 * stream (`Readable.from`). Events, not an async iterator: the iterator's machinery cost the
 * heartbeat path about a tenth of its CPU per request.
 */
export function readJsonBody(body: Readable | null, declaredLength: string | null | undefined): Promise<unknown> {
  return readTextBody(body, declaredLength).then(parseJsonBody);
}

/** A body's exact text, within the same 1 MB (a signed webhook: the signature covers these bytes). */
export function readTextBody(body: Readable | null, declaredLength: string | null | undefined): Promise<string> {
  return new Promise((resolve, reject) => onTextBody(body, declaredLength, resolve, reject));
}

/**
 * readTextBody with callbacks, exactly one of which is called once: the heartbeat path answers a
 * steady heartbeat without a promise, each of which costs the hooks Next.js's AsyncLocalStorage
 * installs.
 */
export function onTextBody(
  body: Readable | null,
  declaredLength: string | null | undefined,
  onText: (text: string) => void,
  onError: (error: ApiError) => void,
): void {
  if (Number(declaredLength ?? "0") > maxBodyBytes) onError(tooLarge());
  else if (!body) onText("");
  else readText(body, onText, onError);
}

function readText(body: Readable, onText: (text: string) => void, onError: (error: ApiError) => void) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let isSettled = false;
  const fail = (error: ApiError) => {
    if (isSettled) return;
    isSettled = true;
    onError(error);
  };
  body.on("data", (chunk: Uint8Array) => {
    // Past the limit the rest is dropped as it comes, until the connection closes.
    if (size > maxBodyBytes) return;
    size += chunk.byteLength;
    if (size > maxBodyBytes) fail(tooLarge());
    else chunks.push(chunk);
  });
  body.on("end", () => {
    if (isSettled) return;
    isSettled = true;
    // One chunk (a heartbeat's whole body, as a rule) is decoded where it lies, not copied first.
    const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
    onText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  });
  // A client that hangs up before the end of its body gets no answer, but the reader must
  // settle. "close" also comes after every complete body: no error is built for those.
  const cutShort = () => fail(new ApiError(400, "request body cut short"));
  body.on("error", cutShort);
  body.on("close", () => {
    if (!isSettled) cutShort();
  });
}

/**
 * A request body's text as JSON; empty means `{}`. NUL characters and lone surrogates (which
 * PostgreSQL cannot store: they would become U+FFFD) are refused anywhere, in keys too.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  // Valid JSON holds these only as escapes (\u0000, \uD800 to \uDFFF): without one, no walk.
  if (/\\u(0000|[dD][89a-fA-F])/.test(text)) {
    const found = findUnstorableText(value);
    if (found) throw badRequest(`request body contains ${found}`);
  }
  return value;
}

const loneSurrogate = /\p{Surrogate}/u;

/** What in a value PostgreSQL cannot store as text, if anything; walks without recursion, so no nesting depth overflows the stack. */
export function findUnstorableText(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      const found = unstorableIn(item);
      if (found) return found;
    } else if (Array.isArray(item)) {
      for (const element of item) pending.push(element);
    } else if (item && typeof item === "object") {
      for (const [key, element] of Object.entries(item)) {
        const found = unstorableIn(key);
        if (found) return found;
        pending.push(element);
      }
    }
  }
  return undefined;
}

function unstorableIn(text: string): string | undefined {
  if (text.includes("\u0000")) return "a NUL character";
  if (loneSurrogate.test(text)) return "a lone UTF-16 surrogate";
  return undefined;
}
