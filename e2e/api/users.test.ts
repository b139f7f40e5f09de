import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { type SeededUser, seedUser } from "@/testing/seeds/users";

const userObjectKeys = ["email", "id", "mfa", "name", "recovery_email", "role", "tenant", "token", "user"];
const currentUserKeys = userObjectKeys.filter((key) => key !== "token");

const login = (username: string, password: string, path = "/api/login") =>
  call("POST", path, { body: { username, password } });

const register = (body: Record<string, unknown>) => call("POST", "/api/register", { body });

/** A valid registration body with random names; `overrides` replace single fields. */
function registration(overrides: Record<string, unknown> = {}) {
  const username = uniqueName("r");
  return { name: "Reg User", username, email: `${username}@example.com`, password: "secret-pass", ...overrides };
}

/** The claims of a JWT, without checking it. */
function claimsOf(token: string): Record<string, unknown> {
  const payload = token.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
}

const me = (token: string) => call("GET", "/api/auth/user", { token });

describe("register", () => {
  it("registers a user and returns the User object with a working token", async () => {
    const body = registration({ name: "Alice Doe" });
    const response = await register(body);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(userObjectKeys);
    expect(response.body).toMatchObject({
      user: body.username,
      name: "Alice Doe",
      email: body.email,
      recovery_email: "",
      tenant: "",
      role: "",
      mfa: false,
    });
    expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const current = await me(response.body.token);
    expect(current.status).toBe(200);
    expect(current.body.id).toBe(response.body.id);
    // The account can log in at once (confirmation is off on this server).
    expect((await login(body.username as string, "secret-pass")).status).toBe(200);
  });

  it.each([
    ["username too short", { username: "ab" }, ["username"]],
    ["username too long", { username: "a".repeat(31) }, ["username"]],
    ["username with a space", { username: "ab cd" }, ["username"]],
    ["username with a plus", { username: "ab+cd" }, ["username"]],
    ["username not a string", { username: 12345 }, ["username"]],
    ["password too short", { password: "1234" }, ["password"]],
    ["password too long", { password: "p".repeat(31) }, ["password"]],
    ["name too short", { name: "ab" }, ["name"]],
    ["name too short once trimmed", { name: "  ab  " }, ["name"]],
    ["name too long", { name: "n".repeat(21) }, ["name"]],
    ["e-mail without @", { email: "not-an-email" }, ["email"]],
    ["e-mail without domain", { email: "someone@" }, ["email"]],
    ["email_marketing not a boolean", { email_marketing: "yes" }, ["email_marketing"]],
    ["two bad fields", { username: "a", password: "1" }, ["username", "password"]],
  ])("refuses %s with 400 and the field names", async (_, override, fields) => {
    const response = await register(registration(override));
    expect(response.status).toBe(400);
    expect(response.body).toEqual(fields);
  });

  it("answers 400 with every missing field name for an empty body", async () => {
    const response = await register({});
    expect(response.status).toBe(400);
    expect([...response.body].sort()).toEqual(["email", "name", "password", "username"]);
  });

  it("accepts the limits: 3 and 30 character usernames with - _ . @, 5 and 30 character passwords, 3 and 20 character names", async () => {
    for (const overrides of [
      { username: `a-_.@${uniqueName("")}`.padEnd(30, "X"), password: "12345", name: "abc" },
      { username: uniqueName("").slice(0, 3), password: "p".repeat(30), name: "n".repeat(20) },
    ]) {
      const body = registration({ ...overrides, email: `${uniqueName("lim")}@example.com` });
      const response = await register(body);
      // A random 3-character name could in theory be taken by another test of this run: the 409 would say so.
      expect(response.status, response.text).toBe(200);
      expect(response.body.user).toBe(overrides.username.toLowerCase());
      expect(response.body.name).toBe(overrides.name);
      expect((await login(overrides.username, overrides.password)).status).toBe(200);
    }
  });

  it("answers 409 with ['username'], ['email'] or both for taken names, ignoring case", async () => {
    const first = registration({ username: uniqueName("Dup").toUpperCase() });
    const firstEmail = (first.email as string).toUpperCase();
    expect((await register({ ...first, email: firstEmail })).status).toBe(200);
    const username = (first.username as string).toLowerCase();
    const email = firstEmail.toLowerCase();

    const sameUsername = await register(registration({ username }));
    expect(sameUsername.status).toBe(409);
    expect(sameUsername.body).toEqual(["username"]);

    const sameEmail = await register(registration({ email }));
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body).toEqual(["email"]);

    const both = await register(registration({ username: username.toUpperCase(), email: firstEmail }));
    expect(both.status).toBe(409);
    expect(both.body).toEqual(["username", "email"]);
  });

  it("stores usernames and e-mails in lower case and logs in regardless of case", async () => {
    const username = uniqueName("MiXeD");
    const email = `${username}@Example.COM`;
    const response = await register(registration({ username, email }));
    expect(response.status).toBe(200);
    expect(response.body.user).toBe(username.toLowerCase());
    expect(response.body.email).toBe(email.toLowerCase());
    for (const identifier of [username, username.toLowerCase(), username.toUpperCase(), email, email.toUpperCase()]) {
      const answer = await login(identifier, "secret-pass");
      expect(answer.status, identifier).toBe(200);
      expect(answer.body.id).toBe(response.body.id);
    }
  });

  it("ignores unknown body fields: id, role, tenant, mfa and confirmation cannot be set", async () => {
    const namespace = await seedNamespace();
    const forcedId = randomUUID();
    const body = registration({
      id: forcedId,
      role: "owner",
      tenant: namespace.tenantId,
      tenant_id: namespace.tenantId,
      mfa: true,
      recovery_email: "rec@example.com",
      is_confirmed: false,
      password_hash: "x",
    });
    const response = await register(body);
    expect(response.status).toBe(200);
    expect(response.body.id).not.toBe(forcedId);
    expect(response.body).toMatchObject({ tenant: "", role: "", mfa: false, recovery_email: "" });
    // Not made a member of the namespace named in the body.
    expect((await call("GET", `/api/auth/token/${namespace.tenantId}`, { token: response.body.token })).status).toBe(
      403,
    );
    const namespaceView = await call("GET", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
    });
    expect(namespaceView.body.members.map((member: { id: string }) => member.id)).toEqual([namespace.owner.id]);
    // The password given is the one stored; the account is usable (not left unconfirmed).
    const answer = await login(body.username as string, "secret-pass");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ tenant: "", role: "", mfa: false });
  });
});

describe("login and POST /api/auth/user", () => {
  it.each(["/api/login", "/api/auth/user"])("%s logs in by username and by e-mail", async (path) => {
    const namespace = await seedNamespace();
    const user = namespace.owner;
    for (const identifier of [user.username, user.email]) {
      const response = await login(identifier, user.password, path);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-account-lockout")).toBe("0");
      expect(Object.keys(response.body).sort()).toEqual(userObjectKeys);
      expect(response.body).toMatchObject({
        id: user.id,
        user: user.username,
        name: "Test User",
        email: user.email,
        recovery_email: "",
        tenant: namespace.tenantId,
        role: "owner",
        mfa: false,
      });
      expect(claimsOf(response.body.token)).toMatchObject({ sub: user.id, tenant: namespace.tenantId, typ: "user" });
      const current = await me(response.body.token);
      expect(current.status).toBe(200);
      expect(current.body.tenant).toBe(namespace.tenantId);
    }
  });

  it("answers 401 with a message for a wrong password and for an unknown user", async () => {
    const user = await seedUser();
    const wrong = await login(user.username, "wrong-password");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: expect.any(String) });
    expect(wrong.body).not.toHaveProperty("token");
    const unknown = await login(uniqueName("nobody"), "whatever");
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it("a user without a namespace logs in with an empty tenant and role", async () => {
    const user = await seedUser();
    const response = await login(user.username, user.password);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ tenant: "", role: "" });
    expect(claimsOf(response.body.token).tenant).toBe("");
  });

  it("a member lands in the namespace with their role", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "observer");
    const response = await login(member.username, member.password);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: member.id, tenant: namespace.tenantId, role: "observer" });
  });

  it("refuses a missing password with 400", async () => {
    const user = await seedUser();
    const response = await call("POST", "/api/login", { body: { username: user.username } });
    expect(response.status).toBe(400);
  });
});

describe("GET /api/auth/user", () => {
  it("returns the bearer's User object as login answers it, with the bearer's own token", async () => {
    const namespace = await seedNamespace();
    const response = await me(namespace.owner.tenantToken);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(userObjectKeys);
    expect(response.body).toEqual({
      // The same token, not a new one: a token cannot renew itself for ever.
      token: namespace.owner.tenantToken,
      id: namespace.owner.id,
      user: namespace.owner.username,
      name: "Test User",
      email: namespace.owner.email,
      recovery_email: "",
      tenant: namespace.tenantId,
      role: "owner",
      mfa: false,
    });
  });

  it("answers a token that keeps working, as the ShellHub UI takes it for its session", async () => {
    const user = await seedUser();
    const response = await me(user.token);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ token: user.token, tenant: "", role: "" });
    expect((await me(response.body.token)).status).toBe(200);
  });

  it("answers 401 with a message without credentials", async () => {
    const response = await call("GET", "/api/auth/user");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });

  it("refuses an API key (403): a key never gets a user token", async () => {
    const namespace = await seedNamespace();
    const response = await call("GET", "/api/auth/user", { apiKey: await seedApiKey(namespace) });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: expect.any(String) });
  });
});

describe.each(["/api/auth/token", "/api/token"])("GET %s/{tenant}", (prefix) => {
  it("returns a User object whose token is for that namespace", async () => {
    const namespace = await seedNamespace();
    const other = await seedNamespace(namespace.owner);
    const response = await call("GET", `${prefix}/${namespace.tenantId}`, { token: namespace.owner.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(userObjectKeys);
    expect(response.body).toMatchObject({ id: namespace.owner.id, tenant: namespace.tenantId, role: "owner" });
    expect(claimsOf(response.body.token)).toMatchObject({ sub: namespace.owner.id, tenant: namespace.tenantId });
    expect((await me(response.body.token)).body.tenant).toBe(namespace.tenantId);
    expect(other.tenantId).not.toBe(namespace.tenantId);
  });

  it("gives a member their own role", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "operator");
    const response = await call("GET", `${prefix}/${namespace.tenantId}`, { token: member.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: member.id, tenant: namespace.tenantId, role: "operator" });
  });

  it("answers 403 to a non-member, also for a namespace that does not exist", async () => {
    const namespace = await seedNamespace();
    const stranger = await seedUser();
    const response = await call("GET", `${prefix}/${namespace.tenantId}`, { token: stranger.token });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await call("GET", `${prefix}/${randomUUID()}`, { token: stranger.token })).status).toBe(403);
  });

  it("answers 400 for a tenant that is not a uuid and 401 without credentials", async () => {
    const user = await seedUser();
    expect((await call("GET", `${prefix}/not-a-uuid`, { token: user.token })).status).toBe(400);
    const namespace = await seedNamespace();
    const anonymous = await call("GET", `${prefix}/${namespace.tenantId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: expect.any(String) });
  });
});

describe("the namespace login lands in", () => {
  it("is the last one switched to with GET /api/token/{tenant}", async () => {
    const first = await seedNamespace();
    const owner = first.owner;
    const second = await seedNamespace(owner);
    // seedNamespace switched to the second one last.
    expect((await login(owner.username, owner.password)).body.tenant).toBe(second.tenantId);
    expect((await call("GET", `/api/token/${first.tenantId}`, { token: owner.token })).status).toBe(200);
    const afterSwitch = await login(owner.username, owner.password);
    expect(afterSwitch.body).toMatchObject({ tenant: first.tenantId, role: "owner" });
    expect(claimsOf(afterSwitch.body.token).tenant).toBe(first.tenantId);
    expect((await call("GET", `/api/token/${second.tenantId}`, { token: owner.token })).status).toBe(200);
    expect((await login(owner.username, owner.password)).body.tenant).toBe(second.tenantId);
  });

  it("is not changed by a refused switch", async () => {
    const namespace = await seedNamespace();
    const foreign = await seedNamespace();
    const owner = namespace.owner;
    expect((await call("GET", `/api/token/${foreign.tenantId}`, { token: owner.token })).status).toBe(403);
    expect((await login(owner.username, owner.password)).body.tenant).toBe(namespace.tenantId);
  });

  it("falls back to the oldest remaining membership when the last one was deleted", async () => {
    const first = await seedNamespace();
    const owner = first.owner;
    const second = await seedNamespace(owner);
    const deleted = await call("DELETE", `/api/namespaces/${second.tenantId}`, { token: second.owner.tenantToken });
    expect(deleted.status).toBe(200);
    const response = await login(owner.username, owner.password);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ tenant: first.tenantId, role: "owner" });
  });
});

describe("PATCH /api/users", () => {
  const patch = (user: SeededUser, body: unknown) => call("PATCH", "/api/users", { token: user.token, body });

  it("changes the name, username and e-mail; the new names log in and the old ones do not", async () => {
    const user = await seedUser();
    const username = uniqueName("renamed");
    const email = `${uniqueName("mail")}@Example.org`;
    const response = await patch(user, { name: "New Name", username: username.toUpperCase(), email });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(currentUserKeys);
    expect(response.body).toMatchObject({
      id: user.id,
      name: "New Name",
      user: username,
      email: email.toLowerCase(),
    });
    expect((await me(user.token)).body).toMatchObject({ name: "New Name", user: username, email: email.toLowerCase() });
    expect((await login(username, user.password)).status).toBe(200);
    expect((await login(email, user.password)).status).toBe(200);
    expect((await login(user.username, user.password)).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(401);
  });

  it("accepts an empty body and changes nothing", async () => {
    const user = await seedUser();
    const response = await patch(user, {});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: user.id, user: user.username, email: user.email, name: "Test User" });
  });

  it("keeps the user's own username and e-mail without a conflict", async () => {
    const user = await seedUser();
    const response = await patch(user, { username: user.username.toUpperCase(), email: user.email });
    expect(response.status).toBe(200);
    expect(response.body.user).toBe(user.username);
  });

  it("answers 409 with the conflicting field names, ignoring case, and changes nothing", async () => {
    const other = await seedUser();
    const user = await seedUser();
    const byUsername = await patch(user, { username: other.username.toUpperCase() });
    expect(byUsername.status).toBe(409);
    expect(byUsername.body).toEqual(["username"]);
    const byEmail = await patch(user, { email: other.email.toUpperCase(), name: "Changed Name" });
    expect(byEmail.status).toBe(409);
    expect(byEmail.body).toEqual(["email"]);
    const both = await patch(user, { username: other.username, email: other.email });
    expect(both.status).toBe(409);
    expect(both.body).toEqual(["username", "email"]);
    expect((await me(user.token)).body).toMatchObject({ user: user.username, email: user.email, name: "Test User" });
  });

  it.each([
    [{ username: "x" }, ["username"]],
    [{ username: "has space" }, ["username"]],
    [{ email: "nope" }, ["email"]],
    [{ name: "ab" }, ["name"]],
    [{ name: "n".repeat(21) }, ["name"]],
    [{ recovery_email: "nope" }, ["recovery_email"]],
    [{ password: "1234", current_password: "secret-pass" }, ["password"]],
    [{ password: "p".repeat(31), current_password: "secret-pass" }, ["password"]],
  ])("refuses %j with 400 and the field names", async (body, fields) => {
    const user = await seedUser();
    const response = await patch(user, body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(fields);
  });

  it("sets a recovery e-mail that must differ from the e-mail and cannot be emptied once set", async () => {
    const user = await seedUser();
    // Empty while none is set: nothing to remove.
    expect((await patch(user, { recovery_email: "" })).status).toBe(200);

    const same = await patch(user, { recovery_email: user.email.toUpperCase() });
    expect(same.status).toBe(400);
    expect(same.body).toEqual(["recovery_email"]);

    const recovery = `${uniqueName("rec")}@example.net`;
    const set = await patch(user, { recovery_email: recovery });
    expect(set.status).toBe(200);
    expect(set.body.recovery_email).toBe(recovery);

    const emptied = await patch(user, { recovery_email: "" });
    expect(emptied.status).toBe(400);
    expect(emptied.body).toEqual(["recovery_email"]);
    expect((await me(user.token)).body.recovery_email).toBe(recovery);

    // The e-mail cannot become the recovery e-mail either.
    const clash = await patch(user, { email: recovery });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual(["email"]);

    // A new e-mail together with a recovery e-mail equal to it.
    const newEmail = `${uniqueName("new")}@example.com`;
    const bothSame = await patch(user, { email: newEmail, recovery_email: newEmail });
    expect(bothSame.status).toBe(400);
    expect(bothSame.body).toEqual(["recovery_email"]);

    const replaced = `${uniqueName("rec2")}@example.net`;
    const replace = await patch(user, { recovery_email: replaced });
    expect(replace.status).toBe(200);
    expect(replace.body).toMatchObject({ recovery_email: replaced, email: user.email });
  });

  it("changes the password only with the right current password", async () => {
    const user = await seedUser();
    const missing = await patch(user, { password: "brand-new-pass" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(["current_password"]);
    const empty = await patch(user, { password: "brand-new-pass", current_password: "" });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(["current_password"]);
    const wrong = await patch(user, { password: "brand-new-pass", current_password: "not-the-password" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ message: expect.any(String) });
    expect((await login(user.username, user.password)).status).toBe(200);
    expect((await login(user.username, "brand-new-pass")).status).toBe(401);

    const changed = await patch(user, { password: "brand-new-pass", current_password: user.password });
    expect(changed.status).toBe(200);
    expect((await login(user.username, "brand-new-pass")).status).toBe(200);
    expect((await login(user.username, user.password)).status).toBe(401);
  });

  it("ignores unknown fields: id, role, tenant and mfa cannot be set", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "observer");
    const other = await seedUser();
    const response = await call("PATCH", "/api/users", {
      token: member.tenantToken,
      body: { name: "Still Me", id: other.id, role: "owner", tenant: randomUUID(), mfa: true, password_hash: "x" },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: member.id,
      name: "Still Me",
      role: "observer",
      tenant: namespace.tenantId,
      mfa: false,
    });
    expect((await me(other.token)).body.name).toBe("Test User");
    expect((await login(member.username, member.password)).body).toMatchObject({ role: "observer", mfa: false });
  });

  it("answers 401 without credentials", async () => {
    const response = await call("PATCH", "/api/users", { body: { name: "Nobody" } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });
});

describe("deprecated PATCH /api/users/{id}/data and /password", () => {
  it("/data changes the caller's own data with the same rules", async () => {
    const other = await seedUser();
    const user = await seedUser();
    const username = uniqueName("data");
    const response = await call("PATCH", `/api/users/${user.id}/data`, {
      token: user.token,
      body: { name: "Data Name", username },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: user.id, name: "Data Name", user: username });
    const conflict = await call("PATCH", `/api/users/${user.id}/data`, {
      token: user.token,
      body: { email: other.email },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual(["email"]);
    const invalid = await call("PATCH", `/api/users/${user.id}/data`, {
      token: user.token,
      body: { email: "bad", name: "x" },
    });
    expect(invalid.status).toBe(400);
    expect([...invalid.body].sort()).toEqual(["email", "name"]);
  });

  it("/data does not change the password even when one is sent", async () => {
    const user = await seedUser();
    const response = await call("PATCH", `/api/users/${user.id}/data`, {
      token: user.token,
      body: { name: "Same Pass", password: "changed-pass", current_password: user.password },
    });
    expect(response.status).toBe(200);
    expect((await login(user.username, user.password)).status).toBe(200);
    expect((await login(user.username, "changed-pass")).status).toBe(401);
  });

  it("/data refuses another user's id with 403 and leaves them unchanged", async () => {
    const user = await seedUser();
    const other = await seedUser();
    const response = await call("PATCH", `/api/users/${other.id}/data`, {
      token: user.token,
      body: { name: "Hijacked", email: `${uniqueName("h")}@example.com` },
    });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await me(other.token)).body).toMatchObject({ name: "Test User", email: other.email });
    expect((await me(user.token)).body.name).toBe("Test User");
  });

  it("/password changes the password with the current one", async () => {
    const user = await seedUser();
    const path = `/api/users/${user.id}/password`;
    const missing = await call("PATCH", path, { token: user.token, body: { new_password: "another-pass" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(["current_password"]);
    const short = await call("PATCH", path, {
      token: user.token,
      body: { current_password: user.password, new_password: "123" },
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual(["new_password"]);
    const wrong = await call("PATCH", path, {
      token: user.token,
      body: { current_password: "wrong-pass", new_password: "another-pass" },
    });
    expect(wrong.status).toBe(403);
    expect((await login(user.username, user.password)).status).toBe(200);

    const changed = await call("PATCH", path, {
      token: user.token,
      body: { current_password: user.password, new_password: "another-pass" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.id).toBe(user.id);
    expect((await login(user.username, "another-pass")).status).toBe(200);
    expect((await login(user.username, user.password)).status).toBe(401);
  });

  it("/password refuses another user's id with 403, even with that user's password", async () => {
    const user = await seedUser();
    const other = await seedUser();
    const response = await call("PATCH", `/api/users/${other.id}/password`, {
      token: user.token,
      body: { current_password: other.password, new_password: "taken-over" },
    });
    expect(response.status).toBe(403);
    expect((await login(other.username, other.password)).status).toBe(200);
    expect((await login(other.username, "taken-over")).status).toBe(401);
    expect((await login(user.username, "taken-over")).status).toBe(401);
  });

  it("answers 400 for an id that is not a uuid", async () => {
    const user = await seedUser();
    const data = await call("PATCH", "/api/users/not-a-uuid/data", { token: user.token, body: { name: "Valid" } });
    expect(data.status).toBe(400);
    const password = await call("PATCH", "/api/users/123/password", {
      token: user.token,
      body: { current_password: user.password, new_password: "another-pass" },
    });
    expect(password.status).toBe(400);
  });
});

describe("API keys on user routes", () => {
  it("are refused with 403 on every user route, also when a valid JWT is sent along", async () => {
    const namespace = await seedNamespace();
    const key = await seedApiKey(namespace, "owner");
    const owner = namespace.owner;
    const routes: [string, string, unknown][] = [
      ["GET", "/api/auth/user", undefined],
      ["GET", `/api/auth/token/${namespace.tenantId}`, undefined],
      ["GET", `/api/token/${namespace.tenantId}`, undefined],
      ["PATCH", "/api/users", { name: "Via Key" }],
      ["PATCH", `/api/users/${owner.id}/data`, { name: "Via Key" }],
      ["PATCH", `/api/users/${owner.id}/password`, { current_password: owner.password, new_password: "via-key-pass" }],
      ["POST", "/api/namespaces", { name: uniqueName("ns") }],
    ];
    for (const [method, path, body] of routes) {
      const alone = await call(method, path, { apiKey: key, body });
      expect(alone.status, `${method} ${path}`).toBe(403);
      expect(alone.body, `${method} ${path}`).toEqual({ message: expect.any(String) });
      const withJwt = await call(method, path, { apiKey: key, token: owner.tenantToken, body });
      expect(withJwt.status, `${method} ${path} with a JWT too`).toBe(403);
    }
    // Nothing changed.
    expect((await me(owner.token)).body.name).toBe("Test User");
    expect((await login(owner.username, owner.password)).status).toBe(200);
  });
});
