import { randomBytes } from "node:crypto";
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

export type SeededUser = { id: string; username: string; email: string; password: string; token: string };

export async function seedUser(
  overrides: Partial<{ username: string; email: string; password: string; name: string }> = {},
  { baseUrl }: { baseUrl?: string } = {},
) {
  const username = overrides.username ?? uniqueName("u");
  const input = {
    name: overrides.name ?? "Test User",
    username,
    email: overrides.email ?? `${username}@example.com`,
    password: overrides.password ?? "secret-pass",
  };
  const response = await call("POST", "/api/register", { body: input, baseUrl });
  if (response.status !== 200) throw new Error(`register failed: ${response.status} ${response.text}`);
  return {
    id: response.body.id,
    username,
    email: input.email,
    password: input.password,
    token: response.body.token,
  } as SeededUser;
}

/** A token of `user` for `tenantId` (the user must be a member). */
export async function tokenFor(user: SeededUser, tenantId: string): Promise<string> {
  const response = await call("GET", `/api/token/${tenantId}`, { token: user.token });
  if (response.status !== 200) throw new Error(`token switch failed: ${response.status} ${response.text}`);
  return response.body.token;
}

export type SeededNamespace = { tenantId: string; name: string; owner: SeededUser & { tenantToken: string } };

export async function seedNamespace(owner?: SeededUser): Promise<SeededNamespace> {
  const user = owner ?? (await seedUser());
  const name = uniqueName("ns");
  const response = await call("POST", "/api/namespaces", { token: user.token, body: { name } });
  if (response.status !== 200) throw new Error(`namespace create failed: ${response.status} ${response.text}`);
  const tenantId = response.body.tenant_id as string;
  return { tenantId, name, owner: { ...user, tenantToken: await tokenFor(user, tenantId) } };
}

export type Role = "owner" | "administrator" | "operator" | "observer";

/** A new user who is a member of the namespace with `role`, and their token for it. */
export async function seedMember(namespace: SeededNamespace, role: Exclude<Role, "owner">) {
  const user = await seedUser();
  const response = await call("POST", `/api/namespaces/${namespace.tenantId}/members`, {
    token: namespace.owner.tenantToken,
    body: { identifier: user.username, role },
  });
  if (response.status !== 200) throw new Error(`add member failed: ${response.status} ${response.text}`);
  return { ...user, tenantToken: await tokenFor(user, namespace.tenantId) };
}

/** An API key of the namespace, created by its owner. */
export async function seedApiKey(namespace: SeededNamespace, role: Role = "owner", expiresAt = -1): Promise<string> {
  const response = await call("POST", "/api/namespaces/api-key", {
    token: namespace.owner.tenantToken,
    body: { name: uniqueName("k"), expires_at: expiresAt, role },
  });
  if (response.status !== 200) throw new Error(`API key create failed: ${response.status} ${response.text}`);
  return response.body.id;
}
