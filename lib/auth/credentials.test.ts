import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { createNamespace } from "@/lib/services/namespaces";
import { members } from "@/models/namespaces";
import { withTestDatabase } from "@/testing/database";
import { insertUser } from "@/testing/rows/users";
import { resolveCaller, resolveScope } from "./credentials";
import { signUserToken } from "./jwt";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

async function namespaceOf(ownerId: string) {
  const namespace = await createNamespace(db, ownerId, { name: `ns${randomUUID().slice(0, 8)}` });
  if (!namespace) throw new Error("no namespace");
  return namespace.tenant_id;
}

/** The caller of a bearer token for `tenant`, as the route wrapper resolves it. */
async function callerWithToken(userId: string, tenant: string) {
  const headers = new Headers({ authorization: `Bearer ${signUserToken({ sub: userId, tenant })}` });
  const caller = await resolveCaller(db, headers, "GET");
  if (!caller) throw new Error("no caller");
  return caller;
}

describe("the caller's scope", () => {
  it("takes the role in the token's namespace from the caller's own statement, and reads any other namespace's", async () => {
    const user = await insertUser(db);
    const owned = await namespaceOf(user.id);
    const other = await namespaceOf((await insertUser(db)).id);
    await db.insert(members).values({ tenantId: other, userId: user.id, role: "observer" });
    const caller = await callerWithToken(user.id, owned);
    expect(caller).toMatchObject({ kind: "user", tokenTenant: owned, tokenRole: "owner" });
    expect((await resolveScope(db, caller)).role).toBe("owner");
    expect((await resolveScope(db, caller, other)).role).toBe("observer");
    expect((await resolveScope(db, caller, owned)).role).toBe("owner");
  });

  it("refuses a namespace the caller left, by token (403) and by path (404)", async () => {
    const user = await insertUser(db);
    const left = await namespaceOf((await insertUser(db)).id);
    await db.insert(members).values({ tenantId: left, userId: user.id, role: "administrator" });
    await db.delete(members).where(and(eq(members.tenantId, left), eq(members.userId, user.id)));
    const caller = await callerWithToken(user.id, left);
    expect(caller).toMatchObject({ tokenRole: null });
    await expect(resolveScope(db, caller)).rejects.toMatchObject({ status: 403 });
    await expect(resolveScope(db, caller, left)).rejects.toMatchObject({ status: 404 });
  });

  it("refuses the token of a user who no longer exists (401)", async () => {
    const headers = new Headers({ authorization: `Bearer ${signUserToken({ sub: randomUUID(), tenant: "" })}` });
    await expect(resolveCaller(db, headers, "GET")).rejects.toMatchObject({ status: 401 });
  });
});
