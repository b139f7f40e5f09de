import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser } from "@/testing/seeds/users";

type Member = { id: string; role: string; status: string; username: string; email: string; added_at: string };

const membersUrl = (namespace: SeededNamespace) => `/api/namespaces/${namespace.tenantId}/members`;
const memberUrl = (namespace: SeededNamespace, userId: string) =>
  `/api/namespaces/${namespace.tenantId}/members/${userId}`;

/** The members as `{id: role}`, read by the owner. */
async function rolesOf(namespace: SeededNamespace): Promise<Record<string, string>> {
  const response = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`get namespace failed: ${response.status} ${response.text}`);
  return Object.fromEntries(response.body.members.map((member: Member) => [member.id, member.role]));
}

const addMember = (namespace: SeededNamespace, token: string, identifier: string, role: string) =>
  call("POST", membersUrl(namespace), { token, body: { identifier, role } });
const updateMember = (namespace: SeededNamespace, token: string, userId: string, role: string) =>
  call("PATCH", memberUrl(namespace, userId), { token, body: { role } });
const removeMember = (namespace: SeededNamespace, token: string, userId: string) =>
  call("DELETE", memberUrl(namespace, userId), { token });

describe("add a member", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });

  it("adds a user by username and answers with the namespace", async () => {
    const user = await seedUser();
    const response = await addMember(namespace, namespace.owner.tenantToken, user.username, "operator");
    expect(response.status).toBe(200);
    expect(response.body.tenant_id).toBe(namespace.tenantId);
    expect(response.body.members).toContainEqual({
      id: user.id,
      role: "operator",
      status: "accepted",
      username: user.username,
      email: user.email,
      added_at: expect.any(String),
    });
    // The new member sees the namespace in their list and may switch to it.
    const list = await call("GET", "/api/namespaces", { token: user.token });
    expect(list.body.map((item: { tenant_id: string }) => item.tenant_id)).toEqual([namespace.tenantId]);
    const token = await call("GET", `/api/token/${namespace.tenantId}`, { token: user.token });
    expect(token.status).toBe(200);
    expect(token.body.role).toBe("operator");
    expect(token.body.tenant).toBe(namespace.tenantId);
  });

  it("adds a user by e-mail, whatever its case", async () => {
    const user = await seedUser();
    const response = await addMember(namespace, namespace.owner.tenantToken, user.email.toUpperCase(), "observer");
    expect(response.status).toBe(200);
    expect((await rolesOf(namespace))[user.id]).toBe("observer");
  });

  it("takes the name under username (ShellHub UI 0.16) or email (0.17) as under identifier", async () => {
    const [byUsername, byEmail] = await Promise.all([seedUser(), seedUser()]);
    const owner = { token: namespace.owner.tenantToken };
    const first = await call("POST", membersUrl(namespace), {
      ...owner,
      body: { username: byUsername.username, role: "operator" },
    });
    expect(first.status, first.text).toBe(200);
    const second = await call("POST", membersUrl(namespace), {
      ...owner,
      body: { email: byEmail.email.toUpperCase(), role: "observer" },
    });
    expect(second.status, second.text).toBe(200);
    const roles = await rolesOf(namespace);
    expect([roles[byUsername.id], roles[byEmail.id]]).toEqual(["operator", "observer"]);
  });

  it("answers 400 naming the fields when the name comes under several of identifier, username, email, or none", async () => {
    const user = await seedUser();
    const before = await rolesOf(namespace);
    const post = (body: Record<string, string>) =>
      call("POST", membersUrl(namespace), { token: namespace.owner.tenantToken, body: { ...body, role: "observer" } });
    const fieldsOf = (response: { body: { fields: { field: string }[] } }) =>
      response.body.fields.map(({ field }) => field);

    const two = await post({ username: user.username, email: user.email });
    expect(two.status).toBe(400);
    expect(two.body.message).toEqual(expect.any(String));
    expect(fieldsOf(two)).toEqual(["username", "email"]);
    const three = await post({ identifier: user.username, username: user.username, email: user.email });
    expect(three.status).toBe(400);
    expect(fieldsOf(three)).toEqual(["identifier", "username", "email"]);
    const none = await post({});
    expect(none.status).toBe(400);
    expect(fieldsOf(none)).toEqual(["identifier"]);
    expect(await rolesOf(namespace)).toEqual(before);
  });

  it("answers 404 for an unknown username or e-mail and adds nobody", async () => {
    const before = await rolesOf(namespace);
    for (const identifier of ["nosuchuser-zz9", "nobody-zz9@example.com"]) {
      const response = await addMember(namespace, namespace.owner.tenantToken, identifier, "observer");
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect(await rolesOf(namespace)).toEqual(before);
  });

  it("answers 409 for a user who is already a member, and keeps their role", async () => {
    const user = await seedUser();
    expect((await addMember(namespace, namespace.owner.tenantToken, user.username, "observer")).status).toBe(200);
    const again = await addMember(namespace, namespace.owner.tenantToken, user.email, "administrator");
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String) });
    expect((await rolesOf(namespace))[user.id]).toBe("observer");
    const self = await addMember(namespace, namespace.owner.tenantToken, namespace.owner.username, "observer");
    expect(self.status).toBe(409);
    expect((await rolesOf(namespace))[namespace.owner.id]).toBe("owner");
  });

  it("lets an administrator add administrators, operators and observers", async () => {
    const administrator = await seedMember(namespace, "administrator");
    for (const role of ["administrator", "operator", "observer"]) {
      const user = await seedUser();
      const response = await addMember(namespace, administrator.tenantToken, user.username, role);
      expect(response.status).toBe(200);
      expect((await rolesOf(namespace))[user.id]).toBe(role);
    }
  });

  it("refuses to grant the owner role, to the owner as to an administrator", async () => {
    const administrator = await seedMember(namespace, "administrator");
    for (const token of [namespace.owner.tenantToken, administrator.tenantToken]) {
      const user = await seedUser();
      const response = await addMember(namespace, token, user.username, "owner");
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ message: expect.any(String) });
      expect((await rolesOf(namespace))[user.id]).toBeUndefined();
    }
  });

  it("refuses operators and observers with 403", async () => {
    const [operator, observer] = await Promise.all([
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    for (const member of [operator, observer]) {
      const user = await seedUser();
      const response = await addMember(namespace, member.tenantToken, user.username, "observer");
      expect(response.status).toBe(403);
      expect((await rolesOf(namespace))[user.id]).toBeUndefined();
    }
  });

  it("adds a user once when the same add is sent many times at once (one 200, the rest 409)", async () => {
    const user = await seedUser();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => addMember(namespace, namespace.owner.tenantToken, user.username, "observer")),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await rolesOf(namespace))[user.id]).toBe("observer");
  });

  it("an e-mail names its own account, not an older account whose username is that e-mail", async () => {
    const email = `${uniqueName("v")}@example.com`;
    // Usernames may contain '@' and '.': someone takes the victim's e-mail as a username first.
    const squatter = await seedUser({ username: email, email: `${uniqueName("s")}@example.com` });
    const victim = await call("POST", "/api/register", {
      body: { name: "Victim", username: uniqueName("v"), email, password: "secret-pass" },
    });
    if (victim.status === 409) {
      // Refusing the ambiguous registration is as good: the identifier then names one account.
      expect(victim.body).toEqual(["email"]);
      return;
    }
    expect(victim.status).toBe(200);
    const response = await addMember(namespace, namespace.owner.tenantToken, email, "observer");
    expect(response.status).toBe(200);
    const roles = await rolesOf(namespace);
    expect(roles[victim.body.id]).toBe("observer");
    expect(roles[squatter.id]).toBeUndefined();
  });

  it("a username equal to an existing e-mail never captures that e-mail", async () => {
    const victim = await seedUser();
    const squatter = await call("POST", "/api/register", {
      body: {
        name: "Squatter",
        username: victim.email,
        email: `${uniqueName("s")}@example.com`,
        password: "secret-pass",
      },
    });
    expect([200, 409]).toContain(squatter.status);
    const response = await addMember(namespace, namespace.owner.tenantToken, victim.email, "observer");
    expect(response.status).toBe(200);
    const roles = await rolesOf(namespace);
    expect(roles[victim.id]).toBe("observer");
    if (squatter.status === 200) expect(roles[squatter.body.id]).toBeUndefined();
  });

  it("answers 404 to another tenant's owner", async () => {
    const stranger = await seedNamespace();
    const user = await seedUser();
    const response = await addMember(namespace, stranger.owner.tenantToken, user.username, "observer");
    expect(response.status).toBe(404);
    expect((await rolesOf(namespace))[user.id]).toBeUndefined();
  });
});

describe("update and remove a member", () => {
  it("lets the owner change a member's role, up to administrator", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "observer");
    for (const role of ["operator", "administrator", "observer"]) {
      const response = await updateMember(namespace, namespace.owner.tenantToken, member.id, role);
      expect(response.status).toBe(200);
      expect(response.body.members).toContainEqual(expect.objectContaining({ id: member.id, role }));
    }
  });

  it("lets an administrator promote an operator to administrator but not to owner", async () => {
    const namespace = await seedNamespace();
    const [administrator, operator] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "operator"),
    ]);
    const toOwner = await updateMember(namespace, administrator.tenantToken, operator.id, "owner");
    expect(toOwner.status).toBe(403);
    expect((await rolesOf(namespace))[operator.id]).toBe("operator");
    const toAdministrator = await updateMember(namespace, administrator.tenantToken, operator.id, "administrator");
    expect(toAdministrator.status).toBe(200);
    expect((await rolesOf(namespace))[operator.id]).toBe("administrator");
  });

  it("refuses to grant the owner role through an update, even by the owner", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const response = await updateMember(namespace, namespace.owner.tenantToken, administrator.id, "owner");
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: expect.any(String) });
    const roles = await rolesOf(namespace);
    expect(roles[administrator.id]).toBe("administrator");
    expect(roles[namespace.owner.id]).toBe("owner");
  });

  it("lets nobody act on a member whose role is not below their own", async () => {
    const namespace = await seedNamespace();
    const [first, second] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "administrator"),
    ]);
    const before = await rolesOf(namespace);
    const cases = [
      () => updateMember(namespace, first.tenantToken, second.id, "observer"),
      () => removeMember(namespace, first.tenantToken, second.id),
      () => updateMember(namespace, first.tenantToken, namespace.owner.id, "observer"),
      () => updateMember(namespace, first.tenantToken, namespace.owner.id, "administrator"),
      () => removeMember(namespace, first.tenantToken, namespace.owner.id),
    ];
    for (const attempt of cases) {
      const response = await attempt();
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect(await rolesOf(namespace)).toEqual(before);
  });

  it("lets nobody change or end their own membership through member routes", async () => {
    const namespace = await seedNamespace();
    const [administrator, operator, observer] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    const before = await rolesOf(namespace);
    const attempts = [
      updateMember(namespace, namespace.owner.tenantToken, namespace.owner.id, "administrator"),
      removeMember(namespace, namespace.owner.tenantToken, namespace.owner.id),
      updateMember(namespace, administrator.tenantToken, administrator.id, "observer"),
      removeMember(namespace, administrator.tenantToken, administrator.id),
      updateMember(namespace, operator.tenantToken, operator.id, "observer"),
      removeMember(namespace, operator.tenantToken, operator.id),
      removeMember(namespace, observer.tenantToken, observer.id),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect(await rolesOf(namespace)).toEqual(before);
  });

  it("never demotes or removes the owner, whoever asks", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const administratorKey = await seedApiKey(namespace, "administrator");
    const ownerKey = await seedApiKey(namespace, "owner");
    const attempts = await Promise.all([
      updateMember(namespace, administrator.tenantToken, namespace.owner.id, "observer"),
      removeMember(namespace, administrator.tenantToken, namespace.owner.id),
      call("PATCH", memberUrl(namespace, namespace.owner.id), { apiKey: administratorKey, body: { role: "observer" } }),
      call("DELETE", memberUrl(namespace, namespace.owner.id), { apiKey: administratorKey }),
      call("PATCH", memberUrl(namespace, namespace.owner.id), { apiKey: ownerKey, body: { role: "observer" } }),
      call("DELETE", memberUrl(namespace, namespace.owner.id), { apiKey: ownerKey }),
    ]);
    expect(attempts.map((response) => response.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect((await rolesOf(namespace))[namespace.owner.id]).toBe("owner");
  });

  it("lets the owner demote and remove an administrator", async () => {
    const namespace = await seedNamespace();
    const [first, second] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "administrator"),
    ]);
    const demoted = await updateMember(namespace, namespace.owner.tenantToken, first.id, "operator");
    expect(demoted.status).toBe(200);
    const removed = await removeMember(namespace, namespace.owner.tenantToken, second.id);
    expect(removed.status).toBe(200);
    expect(removed.body.members.map((member: Member) => member.id)).not.toContain(second.id);
    expect(await rolesOf(namespace)).toEqual({ [namespace.owner.id]: "owner", [first.id]: "operator" });
  });

  it("lets an administrator remove operators and observers", async () => {
    const namespace = await seedNamespace();
    const [administrator, operator, observer] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    for (const member of [operator, observer]) {
      const response = await removeMember(namespace, administrator.tenantToken, member.id);
      expect(response.status).toBe(200);
    }
    expect(await rolesOf(namespace)).toEqual({
      [namespace.owner.id]: "owner",
      [administrator.id]: "administrator",
    });
  });

  it("refuses operators and observers with 403", async () => {
    const namespace = await seedNamespace();
    const [operator, observer, target] = await Promise.all([
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
      seedMember(namespace, "observer"),
    ]);
    for (const member of [operator, observer]) {
      expect((await updateMember(namespace, member.tenantToken, target.id, "operator")).status).toBe(403);
      expect((await removeMember(namespace, member.tenantToken, target.id)).status).toBe(403);
    }
    expect((await rolesOf(namespace))[target.id]).toBe("observer");
  });

  it("answers 404 for a user who is not a member, or a member of another namespace", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const outsider = await seedMember(other, "observer");
    for (const userId of [randomUUID(), outsider.id, other.owner.id]) {
      const update = await updateMember(namespace, namespace.owner.tenantToken, userId, "observer");
      expect(update.status).toBe(404);
      expect(update.body).toEqual({ message: expect.any(String) });
      expect((await removeMember(namespace, namespace.owner.tenantToken, userId)).status).toBe(404);
    }
    expect((await rolesOf(other))[outsider.id]).toBe("observer");
  });

  it("answers 404 to another tenant's owner, who cannot touch the members", async () => {
    const [namespace, stranger] = await Promise.all([seedNamespace(), seedNamespace()]);
    const member = await seedMember(namespace, "observer");
    expect((await updateMember(namespace, stranger.owner.tenantToken, member.id, "administrator")).status).toBe(404);
    expect((await removeMember(namespace, stranger.owner.tenantToken, member.id)).status).toBe(404);
    expect((await rolesOf(namespace))[member.id]).toBe("observer");
  });

  it("answers 400 for a uid that is not a uuid", async () => {
    const namespace = await seedNamespace();
    const response = await removeMember(namespace, namespace.owner.tenantToken, "not-a-uuid");
    expect(response.status).toBe(400);
    expect(response.body.fields.map((item: { field: string }) => item.field)).toEqual(["uid"]);
  });
});

describe("leave a namespace", () => {
  const leave = (namespace: SeededNamespace, token: string) => call("DELETE", membersUrl(namespace), { token });

  it("lets a member leave: the membership and their keys go, and the answer's token is for their next namespace", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const member = await seedMember(namespace, "administrator");
    expect((await addMember(other, other.owner.tenantToken, member.username, "observer")).status).toBe(200);
    const key = await call("POST", "/api/namespaces/api-key", {
      token: member.tenantToken,
      body: { name: uniqueName("k"), expires_at: 30 },
    });
    expect(key.status).toBe(200);

    const response = await leave(namespace, member.tenantToken);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: member.id, tenant: other.tenantId, role: "observer" });
    expect((await rolesOf(namespace))[member.id]).toBeUndefined();
    const keys = await call("GET", "/api/namespaces/api-key", { token: namespace.owner.tenantToken });
    expect(keys.body.map((item: { name: string }) => item.name)).not.toContain(key.body.name);
    expect((await call("GET", "/api/devices", { apiKey: key.body.id })).status).toBe(401);
    const next = await call("GET", `/api/namespaces/${other.tenantId}`, { token: response.body.token });
    expect(next.status).toBe(200);
  });

  it("answers a token without a namespace to a member who leaves their last one", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "observer");
    const response = await leave(namespace, member.tenantToken);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ tenant: "", role: "" });
  });

  it("refuses the owner, API keys, and answers 404 to someone who is not a member", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    expect((await leave(namespace, namespace.owner.tenantToken)).status).toBe(403);
    expect((await leave(namespace, other.owner.tenantToken)).status).toBe(404);
    const apiKey = await seedApiKey(namespace, "observer");
    expect((await call("DELETE", membersUrl(namespace), { apiKey })).status).toBe(403);
    expect((await rolesOf(namespace))[namespace.owner.id]).toBe("owner");
  });
});

describe("rights follow the current membership, not the token", () => {
  it("a removed member loses access at the next request with the same JWT", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "administrator");
    const url = `/api/namespaces/${namespace.tenantId}`;
    expect((await call("GET", url, { token: member.tenantToken })).status).toBe(200);
    expect((await call("GET", "/api/users/security", { token: member.tenantToken })).status).toBe(200);

    expect((await removeMember(namespace, namespace.owner.tenantToken, member.id)).status).toBe(200);

    const read = await call("GET", url, { token: member.tenantToken });
    expect(read.status).toBe(404);
    const edit = await call("PUT", url, {
      token: member.tenantToken,
      body: { settings: { connection_announcement: "x" } },
    });
    expect(edit.status).toBe(404);
    const security = await call("GET", "/api/users/security", { token: member.tenantToken });
    expect(security.status).toBe(403);
    const keys = await call("GET", "/api/namespaces/api-key", { token: member.tenantToken });
    expect(keys.status).toBe(403);
    const create = await call("POST", "/api/namespaces/api-key", {
      token: member.tenantToken,
      body: { name: "after-removal", expires_at: 30 },
    });
    expect(create.status).toBe(403);
    const user = await seedUser();
    expect((await addMember(namespace, member.tenantToken, user.username, "observer")).status).toBe(404);
    expect((await rolesOf(namespace))[user.id]).toBeUndefined();
    const switchBack = await call("GET", `/api/token/${namespace.tenantId}`, { token: member.token });
    expect(switchBack.status).toBe(403);
  });

  it("a demoted member loses the higher rights at the next request with the same JWT", async () => {
    const namespace = await seedNamespace();
    const member = await seedMember(namespace, "administrator");
    const url = `/api/namespaces/${namespace.tenantId}`;
    const before = await call("PUT", url, {
      token: member.tenantToken,
      body: { settings: { connection_announcement: "before" } },
    });
    expect(before.status).toBe(200);

    expect((await updateMember(namespace, namespace.owner.tenantToken, member.id, "observer")).status).toBe(200);

    const after = await call("PUT", url, {
      token: member.tenantToken,
      body: { settings: { connection_announcement: "after" } },
    });
    expect(after.status).toBe(403);
    const read = await call("GET", url, { token: member.tenantToken });
    expect(read.status).toBe(200);
    expect(read.body.settings.connection_announcement).toBe("before");
    const user = await seedUser();
    expect((await addMember(namespace, member.tenantToken, user.username, "observer")).status).toBe(403);
    const create = await call("POST", "/api/namespaces/api-key", {
      token: member.tenantToken,
      body: { name: "after-demotion", expires_at: 30 },
    });
    expect(create.status).toBe(403);

    // Promoted again, the same token regains the rights.
    expect((await updateMember(namespace, namespace.owner.tenantToken, member.id, "administrator")).status).toBe(200);
    const again = await call("PUT", url, {
      token: member.tenantToken,
      body: { settings: { connection_announcement: "again" } },
    });
    expect(again.status).toBe(200);
  });
});
