import { ApiError, badRequest } from "../errors";

export const maxBodyBytes = 1024 * 1024;

/** Reads a JSON body of at most 1 MB; empty means `{}`. NUL characters are refused anywhere. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBodyBytes) throw new ApiError(413, "request body is larger than 1 MB");
  if (!request.body) return {};
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBodyBytes) {
      await reader.cancel();
      // The rest of the body stays unread on the socket: close it rather than reuse it.
      throw new ApiError(413, "request body is larger than 1 MB", { connection: "close" });
    }
    chunks.push(value);
  }
  return parseJsonBody(Buffer.concat(chunks).toString("utf8"));
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
