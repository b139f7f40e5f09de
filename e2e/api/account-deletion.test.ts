import { describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";

/** `DELETE /api/user`: a user deletes their own account, never while it owns namespaces. */

describe("account deletion", () => {
  it("is refused while the account owns namespaces, names them, and deletes nothing", async () => {
    const namespace = await seedNamespace();
    const refused = await call("DELETE", "/api/user", { token: namespace.owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: expect.stringContaining(namespace.name) });
    const read = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: namespace.owner.tenantToken });
    expect(read.status).toBe(200);

    const apiKey = await seedApiKey(namespace);
    expect((await call("DELETE", "/api/user", { apiKey })).status).toBe(403);
    expect((await call("DELETE", "/api/user", {})).status).toBe(401);
  });

  it("deletes a member's account and its memberships, then the owner's once the namespace is gone", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "operator");
    const deleted = await call("DELETE", "/api/user", { token: member.token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ message: expect.any(String) });
    expect(
      (await call("POST", "/api/login", { body: { username: member.username, password: member.password } })).status,
    ).toBe(401);
    const read = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: namespace.owner.tenantToken });
    expect(read.body.members.map((item: { id: string }) => item.id)).toEqual([namespace.owner.id]);

    const owner = namespace.owner;
    expect((await call("DELETE", `/api/namespaces/${namespace.tenantId}`, { token: owner.tenantToken })).status).toBe(
      200,
    );
    expect((await call("DELETE", "/api/user", { token: owner.token })).status).toBe(200);
    expect(
      (await call("POST", "/api/login", { body: { username: owner.username, password: owner.password } })).status,
    ).toBe(401);
  });
});
