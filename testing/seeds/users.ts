import { randomUUID } from "node:crypto";
import type { Executor } from "@/lib/db";
import { users } from "@/models/users";
import { call, uniqueName } from "../client";

/**
 * Users. Through the API (`seedUser`, registered as a person does, with a token), or as a row
 * for service tests (`insertUser`).
 */

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

/** A user row (its password hash is a placeholder: it cannot log in). */
export async function insertUser(db: Executor) {
  const username = `u${randomUUID().slice(0, 8)}`;
  const [user] = await db
    .insert(users)
    .values({ name: "Test User", username, email: `${username}@example.com`, passwordHash: "x" })
    .returning();
  if (!user) throw new Error("no user");
  return user;
}
