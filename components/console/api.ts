/**
 * The console's calls to the API: same origin, the session cookie as the credential (the API
 * token never reaches this code), JSON in and out, failures as `ApiFailure`.
 */

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Headers,
    readonly requestId?: string,
    /** The answer's JSON: the account routes name the refused fields in an array. */
    readonly body?: unknown,
  ) {
    super(message);
  }

  /** A 400's refused fields (`filter.hostname`), to show each message at its input. */
  get fields(): { field: string; message: string }[] {
    const fields = (this.body as { fields?: unknown } | undefined)?.fields;
    return Array.isArray(fields) ? fields : [];
  }

  /** Network failures (status 0) and server faults are worth another try; answers are not. */
  get isRetryable() {
    return this.status === 0 || this.status >= 500;
  }
}

/** Listeners told of every call's outcome: the shell's connectivity banner and its 401 redirect. */
type Listener = (event: { kind: "reachable" } | { kind: "unreachable" } | { kind: "unauthorized" }) => void;
const listeners = new Set<Listener>();
export function onApiEvent(listener: Listener) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
const emit = (event: Parameters<Listener>[0]) => {
  for (const listener of listeners) listener(event);
};

export type Answer<T> = { data: T; total?: number; headers: Headers };

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers, credentials: "same-origin" });
  } catch {
    emit({ kind: "unreachable" });
    throw new ApiFailure(0, "The service cannot be reached.", new Headers());
  }
  emit(response.status === 502 || response.status === 503 ? { kind: "unreachable" } : { kind: "reachable" });
  if (response.ok) return response;
  const body = await response.json().catch(() => undefined);
  if (response.status === 401) emit({ kind: "unauthorized" });
  const message = typeof body?.message === "string" ? body.message : `The service answered ${response.status}.`;
  throw new ApiFailure(response.status, message, response.headers, body?.request_id, body);
}

/** A call whose answer is JSON (or nothing); lists carry `X-Total-Count` as `total`. */
export async function api<T>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
  const response = await send(path, init);
  const text = await response.text();
  const total = response.headers.get("x-total-count");
  return {
    data: (text ? JSON.parse(text) : undefined) as T,
    total: total === null ? undefined : Number(total),
    headers: response.headers,
  };
}

export const json = (body: unknown): RequestInit["body"] => JSON.stringify(body);

/** The message of a failure, as a sentence for the screen. */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const sentence = `${message.charAt(0).toUpperCase()}${message.slice(1)}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
