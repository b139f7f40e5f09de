import { createHash, randomBytes, randomUUID } from "node:crypto";
import { inject } from "vitest";

// biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape; each assertion checks what it reads
export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type CallOptions = {
  token?: string;
  apiKey?: string;
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  baseUrl?: string;
};

/** One HTTP request to the test server; the body is parsed as JSON when it is JSON. */
// biome-ignore lint/suspicious/noExplicitAny: as ApiResponse
export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  let body: string | Buffer | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(`${options.baseUrl ?? inject("baseUrl")}${path}`, {
    method,
    headers,
    body: body as BodyInit,
  });
  // An event stream never ends by itself: its status and headers are the answer.
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, body: undefined as T, text: "" };
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A random lower-case name, unique enough for tests running in parallel. */
export const uniqueName = (prefix = "t") => `${prefix}${randomBytes(5).toString("hex")}`;

/** A random uid of 64 hex digits, as devices' and sessions' uids are. */
export const randomUid = () => createHash("sha256").update(randomUUID()).digest("hex");

/** A device list's `filter` query value: base64 of the JSON of `items`. */
export const filterOf = (items: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(items)).toString("base64"));
export const property = (name: string, operator: string, value: unknown) => ({
  type: "property",
  params: { name, operator, value },
});
