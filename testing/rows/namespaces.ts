import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { resolveScope, type Scope } from "@/lib/auth/credentials";
import type { Db } from "@/lib/db";
import { createNamespace } from "@/lib/services/namespaces";
import { namespaces } from "@/models/namespaces";
import { insertUser, userCaller } from "./users";

/** A new namespace row and its owner's scope; `maxDevices` is set directly (no API changes it). */
export async function seedScope(db: Db, maxDevices = -1): Promise<Scope> {
  const user = await insertUser(db);
  const namespace = await createNamespace(db, user.id, { name: `ns${randomUUID().slice(0, 8)}` });
  if (!namespace) throw new Error("no namespace");
  await db.update(namespaces).set({ maxDevices }).where(eq(namespaces.tenantId, namespace.tenant_id));
  return resolveScope(db, await userCaller(user.id, namespace.tenant_id));
}
