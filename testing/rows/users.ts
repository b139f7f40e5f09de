import { randomUUID } from "node:crypto";
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
