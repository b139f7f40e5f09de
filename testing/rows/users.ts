import { randomUUID } from "node:crypto";
import type { Caller } from "@/lib/auth/credentials";
import { signUserToken } from "@/lib/auth/jwt";
import type { Executor } from "@/lib/db";
import { users } from "@/models/users";

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

/** The user as the route wrapper sees a caller with a token for `tenantId`. */
export async function userCaller(userId: string, tenantId: string): Promise<Caller> {
  return { kind: "user", userId, tokenTenant: tenantId, token: signUserToken({ sub: userId, tenant: tenantId }) };
}
