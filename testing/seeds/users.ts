import { call, uniqueName } from "../client";

/** Users, registered through the API as a person does, with a token. */

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
export async function tokenFor(user: SeededUser, tenantId: string, { baseUrl }: { baseUrl?: string } = {}) {
  const response = await call("GET", `/api/token/${tenantId}`, { token: user.token, baseUrl });
  if (response.status !== 200) throw new Error(`token switch failed: ${response.status} ${response.text}`);
  return response.body.token as string;
}
