import { randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { type SeededUser, seedUser, tokenFor } from "@/testing/seeds/users";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The `filter` query value: base64 of the JSON of `value`. */
const filterOf = (value: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString("base64"));
const property = (name: string, operator: string, value: unknown) => ({
  type: "property",
  params: { name, operator, value },
});

/** A random valid namespace name of exactly `length` characters. */
function nameOfLength(length: number) {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join("");
}

/** The distinct field names of a 400 body's `fields`. */
const fieldNames = (body: { fields?: { field: string }[] }) => [
  ...new Set((body.fields ?? []).map((item) => item.field)),
];

async function createNamespace(token: string, name = uniqueName("ns")) {
  return call("POST", "/api/namespaces", { token, body: { name } });
}

async function getNamespace(token: string, tenantId: string) {
  return call("GET", `/api/namespaces/${tenantId}`, { token });
}

describe("create namespace", () => {
  let user: SeededUser;
  beforeAll(async () => {
    user = await seedUser();
  });

  it("creates a namespace owned by the caller with default settings and counts", async () => {
    const name = uniqueName("ns");
    const response = await createNamespace(user.token, name);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      name,
      owner: user.id,
      tenant_id: expect.stringMatching(uuidPattern),
      members: [
        {
          id: user.id,
          role: "owner",
          status: "accepted",
          username: user.username,
          email: user.email,
          added_at: expect.any(String),
        },
      ],
      settings: { session_record: false, connection_announcement: "", allow_unsigned_agents: false },
      max_devices: -1,
      device_count: 0,
      created_at: expect.stringMatching(isoPattern),
      billing: null,
    });
    expect(response.body.members[0].added_at).toMatch(isoPattern);
    // The creator can switch to it and read it back.
    const token = await tokenFor(user, response.body.tenant_id);
    const read = await getNamespace(token, response.body.tenant_id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it.each([
    ["3 characters", () => nameOfLength(3)],
    ["30 characters", () => nameOfLength(30)],
    ["an inner hyphen", () => `a-${nameOfLength(8)}`],
    ["two inner hyphens in a row", () => `${nameOfLength(4)}--b`],
    ["digits only", () => String(100000000 + Math.floor(Math.random() * 899999999))],
  ])("accepts a name with %s", async (_label, makeName) => {
    const name = makeName();
    const response = await createNamespace(user.token, name);
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(name);
  });

  it.each([
    ["too short", "ab"],
    ["too long", "a".repeat(31)],
    ["upper case", "Abcdef"],
    ["a leading hyphen", "-abcdef"],
    ["a trailing hyphen", "abcdef-"],
    ["an underscore", "abc_def"],
    ["a dot", "abc.def"],
    ["a space", "abc def"],
    ["empty", ""],
    ["a number", 12345],
    ["null", null],
    ["an array", ["abcdef"]],
  ])("refuses a name that is %s with 400 naming the field", async (_label, name) => {
    const response = await call("POST", "/api/namespaces", { token: user.token, body: { name } });
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.any(String));
    expect(fieldNames(response.body)).toEqual(["name"]);
  });

  it("refuses a missing name with 400", async () => {
    const response = await call("POST", "/api/namespaces", { token: user.token, body: {} });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["name"]);
  });

  it("answers 409 for a taken name, also when another user owns it, and creates nothing", async () => {
    const other = await seedUser();
    const name = uniqueName("ns");
    expect((await createNamespace(user.token, name)).status).toBe(200);
    const again = await createNamespace(user.token, name);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String) });
    const byOther = await createNamespace(other.token, name);
    expect(byOther.status).toBe(409);
    const list = await call("GET", "/api/namespaces?per_page=100", { token: other.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers.get("x-total-count")).toBe("0");
  });

  it("creates a name once when it is asked for many times at once (one 200, the rest 409)", async () => {
    const name = uniqueName("ns");
    const users = await Promise.all([seedUser(), seedUser(), seedUser()]);
    const responses = await Promise.all(
      [...users, ...users].map((candidate) => createNamespace(candidate.token, name)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = responses.find((response) => response.status === 200)?.body.owner;
    const lists = await Promise.all(
      users.map((candidate) => call("GET", "/api/namespaces", { token: candidate.token })),
    );
    expect(lists.map((list) => list.body.length)).toEqual(users.map((candidate) => (candidate.id === winner ? 1 : 0)));
  });

  it("ignores unknown fields: owner, tenant_id, max_devices and members cannot be set", async () => {
    const other = await seedUser();
    const tenantId = randomUUID();
    const name = uniqueName("ns");
    const response = await call("POST", "/api/namespaces", {
      token: user.token,
      body: {
        name,
        owner: other.id,
        tenant_id: tenantId,
        max_devices: 5,
        device_count: 3,
        members: [{ id: other.id, role: "owner" }],
        settings: { session_record: true },
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.owner).toBe(user.id);
    expect(response.body.tenant_id).not.toBe(tenantId);
    expect(response.body.max_devices).toBe(-1);
    expect(response.body.device_count).toBe(0);
    expect(response.body.members.map((member: { id: string }) => member.id)).toEqual([user.id]);
  });

  it("refuses API keys (403) and anonymous callers (401)", async () => {
    const namespace = await seedNamespace();
    const key = await seedApiKey(namespace, "owner");
    const withKey = await call("POST", "/api/namespaces", { apiKey: key, body: { name: uniqueName("ns") } });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toEqual({ message: expect.any(String) });
    const anonymous = await call("POST", "/api/namespaces", { body: { name: uniqueName("ns") } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: expect.any(String) });
  });
});

describe("list namespaces", () => {
  let user: SeededUser;
  let own: { name: string; tenant_id: string }[];
  let memberOf: SeededNamespace;
  let stranger: SeededNamespace;

  beforeAll(async () => {
    user = await seedUser();
    own = [];
    // Created one after the other: the list is in creation order.
    for (const prefix of ["alpha", "beta", "gamma"]) {
      const response = await createNamespace(user.token, uniqueName(prefix));
      if (response.status !== 200) throw new Error(`create failed: ${response.text}`);
      own.push(response.body);
    }
    memberOf = await seedNamespace();
    const added = await call("POST", `/api/namespaces/${memberOf.tenantId}/members`, {
      token: memberOf.owner.tenantToken,
      body: { identifier: user.username, role: "observer" },
    });
    if (added.status !== 200) throw new Error(`add member failed: ${added.text}`);
    stranger = await seedNamespace();
  });

  const names = (body: { name: string }[]) => body.map((item) => item.name);

  it("shows only the caller's namespaces, owned or joined, with X-Total-Count", async () => {
    const response = await call("GET", "/api/namespaces", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("4");
    expect(names(response.body)).toEqual([...own.map((item) => item.name), memberOf.name]);
    expect(names(response.body)).not.toContain(stranger.name);
    const joined = response.body.find((item: { tenant_id: string }) => item.tenant_id === memberOf.tenantId);
    expect(joined.members).toEqual([
      expect.objectContaining({ id: memberOf.owner.id, role: "owner" }),
      expect.objectContaining({ id: user.id, role: "observer" }),
    ]);
  });

  it("pages with page and per_page; X-Total-Count is the total", async () => {
    const first = await call("GET", "/api/namespaces?page=1&per_page=3", { token: user.token });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-total-count")).toBe("4");
    expect(names(first.body)).toEqual(own.map((item) => item.name));
    const second = await call("GET", "/api/namespaces?page=2&per_page=3", { token: user.token });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-total-count")).toBe("4");
    expect(names(second.body)).toEqual([memberOf.name]);
    const beyond = await call("GET", "/api/namespaces?page=3&per_page=3", { token: user.token });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get("x-total-count")).toBe("4");
    const hundred = await call("GET", "/api/namespaces?per_page=100", { token: user.token });
    expect(hundred.status).toBe(200);
    expect(hundred.body).toHaveLength(4);
  });

  it("defaults per_page to 10", async () => {
    const many = await seedUser();
    for (let index = 0; index < 11; index++) {
      expect((await createNamespace(many.token)).status).toBe(200);
    }
    const response = await call("GET", "/api/namespaces", { token: many.token });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(10);
    expect(response.headers.get("x-total-count")).toBe("11");
    const second = await call("GET", "/api/namespaces?page=2", { token: many.token });
    expect(second.body).toHaveLength(1);
  });

  it.each([
    ["per_page=0", "per_page"],
    ["per_page=101", "per_page"],
    ["per_page=-1", "per_page"],
    ["per_page=abc", "per_page"],
    ["per_page=1.5", "per_page"],
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=abc", "page"],
    ["page=2.5", "page"],
  ])("refuses %s with 400 naming the parameter", async (query, field) => {
    const response = await call("GET", `/api/namespaces?${query}`, { token: user.token });
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.any(String));
    expect(fieldNames(response.body)).toEqual([field]);
  });

  it("filters on name with contains", async () => {
    const response = await call("GET", `/api/namespaces?filter=${filterOf([property("name", "contains", "beta")])}`, {
      token: user.token,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("1");
    expect(names(response.body)).toEqual([own[1]?.name]);
  });

  it("filters on name with eq", async () => {
    const target = own[2]?.name ?? "";
    const exact = await call("GET", `/api/namespaces?filter=${filterOf([property("name", "eq", target)])}`, {
      token: user.token,
    });
    expect(exact.status).toBe(200);
    expect(names(exact.body)).toEqual([target]);
    expect(exact.headers.get("x-total-count")).toBe("1");
    const partial = await call("GET", `/api/namespaces?filter=${filterOf([property("name", "eq", "gamma")])}`, {
      token: user.token,
    });
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual([]);
    expect(partial.headers.get("x-total-count")).toBe("0");
  });

  it("never shows another tenant's namespace through a filter", async () => {
    const response = await call("GET", `/api/namespaces?filter=${filterOf([property("name", "eq", stranger.name)])}`, {
      token: user.token,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers.get("x-total-count")).toBe("0");
  });

  it("treats LIKE wildcards in contains as plain characters", async () => {
    for (const value of ["%", "_"]) {
      const response = await call("GET", `/api/namespaces?filter=${filterOf([property("name", "contains", value)])}`, {
        token: user.token,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
      expect(response.headers.get("x-total-count")).toBe("0");
    }
  });

  it("combines conditions with an or operator", async () => {
    const filter = filterOf([
      property("name", "contains", "alpha"),
      property("name", "contains", "gamma"),
      { type: "operator", params: { name: "or" } },
    ]);
    const response = await call("GET", `/api/namespaces?filter=${filter}`, { token: user.token });
    expect(response.status).toBe(200);
    expect(names(response.body)).toEqual([own[0]?.name, own[2]?.name]);
    expect(response.headers.get("x-total-count")).toBe("2");
  });

  it("pages a filtered list", async () => {
    const filter = filterOf([property("name", "contains", "a")]);
    const response = await call("GET", `/api/namespaces?filter=${filter}&per_page=1&page=2`, { token: user.token });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
    const all = await call("GET", `/api/namespaces?filter=${filter}&per_page=100`, { token: user.token });
    expect(response.headers.get("x-total-count")).toBe(String(all.body.length));
    expect(response.body[0].name).toBe(all.body[1].name);
  });

  it.each([
    ["bad base64", encodeURIComponent("!!!not base64!!!")],
    ["base64 of something that is not JSON", encodeURIComponent(Buffer.from("not json").toString("base64"))],
    ["a JSON object instead of an array", filterOf({ name: "alpha" })],
    ["an unknown operator", filterOf([property("name", "like", "alpha")])],
    ["an unknown item type", filterOf([{ type: "magic", params: {} }])],
  ])("refuses a filter that is %s with 400 naming filter", async (_label, filter) => {
    const response = await call("GET", `/api/namespaces?filter=${filter}`, { token: user.token });
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.any(String));
    expect(fieldNames(response.body)).toEqual(["filter"]);
  });

  it.each([
    ["owner", "contains", "a"],
    ["settings.session_record", "eq", "true"],
    ["members", "contains", "a"],
  ])("refuses a filter on the unknown property %s with 400", async (name, operator, value) => {
    const response = await call("GET", `/api/namespaces?filter=${filterOf([property(name, operator, value)])}`, {
      token: user.token,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: expect.stringContaining(name) });
  });

  it("filters on created_at with gt and lt", async () => {
    const future = "2999-01-01T00:00:00Z";
    const before = await call("GET", `/api/namespaces?filter=${filterOf([property("created_at", "lt", future)])}`, {
      token: user.token,
    });
    expect(before.status).toBe(200);
    expect(before.headers.get("x-total-count")).toBe("4");
    const after = await call("GET", `/api/namespaces?filter=${filterOf([property("created_at", "gt", future)])}`, {
      token: user.token,
    });
    expect(after.status).toBe(200);
    expect(after.body).toEqual([]);
  });

  it.each([
    ["a date property with a bad date", property("created_at", "gt", "not a date")],
    ["contains on a date property", property("created_at", "contains", "2024")],
    ["bool on a text property", property("name", "bool", true)],
  ])("refuses a filter with %s with 400", async (_label, condition) => {
    const response = await call("GET", `/api/namespaces?filter=${filterOf([condition])}`, { token: user.token });
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.any(String));
  });

  it("lists exactly the API key's namespace for an API key", async () => {
    const key = await seedApiKey(memberOf, "observer");
    const response = await call("GET", "/api/namespaces", { apiKey: key });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("1");
    expect(names(response.body)).toEqual([memberOf.name]);
  });

  it("answers 401 without credentials", async () => {
    const response = await call("GET", "/api/namespaces");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });
});

describe("get a namespace", () => {
  let namespace: SeededNamespace;
  let stranger: SeededNamespace;
  beforeAll(async () => {
    [namespace, stranger] = await Promise.all([seedNamespace(), seedNamespace()]);
  });

  it("shows the namespace to an observer", async () => {
    const observer = await seedMember(namespace, "observer");
    const response = await getNamespace(observer.tenantToken, namespace.tenantId);
    expect(response.status).toBe(200);
    expect(response.body.tenant_id).toBe(namespace.tenantId);
    expect(response.body.name).toBe(namespace.name);
    expect(response.body.owner).toBe(namespace.owner.id);
    expect(response.body.members).toEqual([
      expect.objectContaining({ id: namespace.owner.id, role: "owner" }),
      expect.objectContaining({ id: observer.id, role: "observer", username: observer.username }),
    ]);
  });

  it("answers 404 for another tenant's namespace, whatever token the user holds", async () => {
    for (const token of [stranger.owner.token, stranger.owner.tenantToken]) {
      const response = await getNamespace(token, namespace.tenantId);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });

  it("answers the same 404 for a namespace that does not exist", async () => {
    const missing = await getNamespace(stranger.owner.tenantToken, randomUUID());
    const foreign = await getNamespace(stranger.owner.tenantToken, namespace.tenantId);
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  it("answers 404 for an API key of another namespace", async () => {
    const key = await seedApiKey(stranger, "owner");
    const response = await call("GET", `/api/namespaces/${namespace.tenantId}`, { apiKey: key });
    expect(response.status).toBe(404);
    const own = await call("GET", `/api/namespaces/${stranger.tenantId}`, { apiKey: key });
    expect(own.status).toBe(200);
    expect(own.body.tenant_id).toBe(stranger.tenantId);
  });

  it.each(["not-a-uuid", "123", `${randomUUID()}x`])("answers 400 for the tenant %s", async (tenant) => {
    const response = await getNamespace(namespace.owner.tenantToken, tenant);
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["tenant"]);
  });

  it("answers 401 without credentials", async () => {
    const response = await call("GET", `/api/namespaces/${namespace.tenantId}`);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
  });
});

describe("edit a namespace", () => {
  it("renames and changes settings; GET shows the change", async () => {
    const namespace = await seedNamespace();
    const name = uniqueName("ns");
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { name, settings: { session_record: true, connection_announcement: "Welcome, authorised users only" } },
    });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(name);
    expect(response.body.settings).toEqual({
      session_record: true,
      connection_announcement: "Welcome, authorised users only",
      allow_unsigned_agents: false,
    });
    const read = await getNamespace(namespace.owner.tenantToken, namespace.tenantId);
    expect(read.body).toEqual(response.body);
    // The old name is free again.
    expect((await createNamespace(namespace.owner.token, namespace.name)).status).toBe(200);
  });

  it("changes only the settings given", async () => {
    const namespace = await seedNamespace();
    const url = `/api/namespaces/${namespace.tenantId}`;
    const token = namespace.owner.tenantToken;
    expect((await call("PUT", url, { token, body: { settings: { session_record: true } } })).status).toBe(200);
    const announcement = await call("PUT", url, { token, body: { settings: { connection_announcement: "hi" } } });
    expect(announcement.status).toBe(200);
    expect(announcement.body.settings).toEqual({
      session_record: true,
      connection_announcement: "hi",
      allow_unsigned_agents: false,
    });
    expect(announcement.body.name).toBe(namespace.name);
    const off = await call("PUT", url, { token, body: { settings: { session_record: false } } });
    expect(off.body.settings).toEqual({
      session_record: false,
      connection_announcement: "hi",
      allow_unsigned_agents: false,
    });
    const unsigned = await call("PUT", url, { token, body: { settings: { allow_unsigned_agents: true } } });
    expect(unsigned.body.settings).toEqual({ ...off.body.settings, allow_unsigned_agents: true });
    await call("PUT", url, { token, body: { settings: { allow_unsigned_agents: false } } });
    const nothing = await call("PUT", url, { token, body: {} });
    expect(nothing.status).toBe(200);
    expect(nothing.body).toEqual(off.body);
  });

  it("lets an administrator edit, refuses operators and observers with 403", async () => {
    const namespace = await seedNamespace();
    const [administrator, operator, observer] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    const url = `/api/namespaces/${namespace.tenantId}`;
    const allowed = await call("PUT", url, {
      token: administrator.tenantToken,
      body: { settings: { connection_announcement: "by admin" } },
    });
    expect(allowed.status).toBe(200);
    for (const member of [operator, observer]) {
      const refused = await call("PUT", url, {
        token: member.tenantToken,
        body: { name: uniqueName("ns"), settings: { connection_announcement: "nope" } },
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message: expect.any(String) });
    }
    const read = await getNamespace(namespace.owner.tenantToken, namespace.tenantId);
    expect(read.body.name).toBe(namespace.name);
    expect(read.body.settings.connection_announcement).toBe("by admin");
  });

  it("answers 409 for a taken name and changes nothing", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { name: other.name, settings: { connection_announcement: "changed" } },
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: expect.any(String) });
    const read = await getNamespace(namespace.owner.tenantToken, namespace.tenantId);
    expect(read.body.name).toBe(namespace.name);
    expect(read.body.settings.connection_announcement).toBe("");
  });

  it("keeps its own name when renamed to it", async () => {
    const namespace = await seedNamespace();
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { name: namespace.name },
    });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(namespace.name);
  });

  it.each([
    ["an invalid name", { name: "Bad Name" }, "name"],
    ["a non-boolean session_record", { settings: { session_record: "yes" } }, "settings.session_record"],
    [
      "a non-string connection_announcement",
      { settings: { connection_announcement: 5 } },
      "settings.connection_announcement",
    ],
    [
      "a connection_announcement over 4096 characters",
      { settings: { connection_announcement: "x".repeat(4097) } },
      "settings.connection_announcement",
    ],
    ["settings that are not an object", { settings: "on" }, "settings"],
    [
      "a non-boolean allow_unsigned_agents",
      { settings: { allow_unsigned_agents: 1 } },
      "settings.allow_unsigned_agents",
    ],
  ])("refuses %s with 400 and changes nothing", async (_label, body, field) => {
    const namespace = await seedNamespace();
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { name: uniqueName("ns"), ...body },
    });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual([field]);
    const read = await getNamespace(namespace.owner.tenantToken, namespace.tenantId);
    expect(read.body.name).toBe(namespace.name);
    expect(read.body.settings).toEqual({
      session_record: false,
      connection_announcement: "",
      allow_unsigned_agents: false,
    });
  });

  it("ignores owner, tenant_id, max_devices and members in the body", async () => {
    const namespace = await seedNamespace();
    const other = await seedUser();
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: {
        owner: other.id,
        tenant_id: randomUUID(),
        max_devices: 3,
        device_count: 7,
        members: [{ id: other.id, role: "owner" }],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.owner).toBe(namespace.owner.id);
    expect(response.body.tenant_id).toBe(namespace.tenantId);
    expect(response.body.max_devices).toBe(-1);
    expect(response.body.device_count).toBe(0);
    expect(response.body.members).toHaveLength(1);
  });

  it("answers 404 to another tenant's administrator", async () => {
    const [namespace, stranger] = await Promise.all([seedNamespace(), seedNamespace()]);
    const response = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: stranger.owner.tenantToken,
      body: { name: uniqueName("ns") },
    });
    expect(response.status).toBe(404);
    const read = await getNamespace(namespace.owner.tenantToken, namespace.tenantId);
    expect(read.body.name).toBe(namespace.name);
  });
});

describe("delete a namespace", () => {
  it("lets only the owner delete; members and API keys go with it", async () => {
    const namespace = await seedNamespace();
    const [administrator, observer] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "observer"),
    ]);
    const ownerKey = await seedApiKey(namespace, "observer");
    const url = `/api/namespaces/${namespace.tenantId}`;

    const refused = await call("DELETE", url, { token: administrator.tenantToken });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: expect.any(String) });
    expect((await getNamespace(namespace.owner.tenantToken, namespace.tenantId)).status).toBe(200);
    expect((await call("GET", "/api/namespaces/api-key", { apiKey: ownerKey })).status).toBe(200);

    const deleted = await call("DELETE", url, { token: namespace.owner.tenantToken });
    expect(deleted.status).toBe(200);

    expect((await getNamespace(namespace.owner.tenantToken, namespace.tenantId)).status).toBe(404);
    for (const member of [administrator, observer]) {
      expect((await getNamespace(member.tenantToken, namespace.tenantId)).status).toBe(404);
      const list = await call("GET", "/api/namespaces", { token: member.token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([]);
      expect(list.headers.get("x-total-count")).toBe("0");
      const token = await call("GET", `/api/token/${namespace.tenantId}`, { token: member.token });
      expect(token.status).toBe(403);
    }
    const withKey = await call("GET", "/api/namespaces/api-key", { apiKey: ownerKey });
    expect(withKey.status).toBe(401);
    expect(withKey.body).toEqual({ message: expect.any(String) });
    expect((await call("GET", "/api/namespaces", { apiKey: ownerKey })).status).toBe(401);

    // Deleting it again is a 404; its name is free.
    expect((await call("DELETE", url, { token: namespace.owner.tenantToken })).status).toBe(404);
    expect((await createNamespace(namespace.owner.token, namespace.name)).status).toBe(200);
  });

  it("refuses operators and observers with 403", async () => {
    const namespace = await seedNamespace();
    const [operator, observer] = await Promise.all([
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    for (const member of [operator, observer]) {
      const response = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, { token: member.tenantToken });
      expect(response.status).toBe(403);
    }
    expect((await getNamespace(namespace.owner.tenantToken, namespace.tenantId)).status).toBe(200);
  });

  it("answers 404 to another tenant's owner and deletes nothing", async () => {
    const [namespace, stranger] = await Promise.all([seedNamespace(), seedNamespace()]);
    const response = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
      token: stranger.owner.tenantToken,
    });
    expect(response.status).toBe(404);
    expect((await getNamespace(namespace.owner.tenantToken, namespace.tenantId)).status).toBe(200);
  });

  it("leaves the owner's other namespaces alone", async () => {
    const namespace = await seedNamespace();
    const other = await seedNamespace(namespace.owner);
    const response = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
    });
    expect(response.status).toBe(200);
    const list = await call("GET", "/api/namespaces", { token: namespace.owner.token });
    expect(list.body.map((item: { tenant_id: string }) => item.tenant_id)).toEqual([other.tenantId]);
    expect((await getNamespace(other.owner.tenantToken, other.tenantId)).status).toBe(200);
  });
});

describe("session-record setting", () => {
  it("reads and sets the active namespace's session_record", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const initial = await call("GET", "/api/users/security", { token });
    expect(initial.status).toBe(200);
    expect(initial.body).toBe(false);

    const on = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
      token,
      body: { session_record: true },
    });
    expect(on.status).toBe(200);
    expect(on.body).toBe(true);
    expect((await call("GET", "/api/users/security", { token })).body).toBe(true);
    expect((await getNamespace(token, namespace.tenantId)).body.settings.session_record).toBe(true);

    // session_record defaults to false.
    const off = await call("PUT", `/api/users/security/${namespace.tenantId}`, { token, body: {} });
    expect(off.status).toBe(200);
    expect(off.body).toBe(false);
    expect((await call("GET", "/api/users/security", { token })).body).toBe(false);
  });

  it("answers for the namespace of the token", async () => {
    const first = await seedNamespace();
    const second = await seedNamespace(first.owner);
    const set = await call("PUT", `/api/users/security/${second.tenantId}`, {
      token: first.owner.tenantToken,
      body: { session_record: true },
    });
    expect(set.status).toBe(200);
    expect((await call("GET", "/api/users/security", { token: first.owner.tenantToken })).body).toBe(false);
    expect((await call("GET", "/api/users/security", { token: second.owner.tenantToken })).body).toBe(true);
  });

  it("lets observers read and administrators set; refuses operators and observers setting", async () => {
    const namespace = await seedNamespace();
    const [administrator, operator, observer] = await Promise.all([
      seedMember(namespace, "administrator"),
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    const url = `/api/users/security/${namespace.tenantId}`;
    expect((await call("GET", "/api/users/security", { token: observer.tenantToken })).status).toBe(200);
    for (const member of [operator, observer]) {
      const refused = await call("PUT", url, { token: member.tenantToken, body: { session_record: true } });
      expect(refused.status).toBe(403);
    }
    expect((await call("GET", "/api/users/security", { token: observer.tenantToken })).body).toBe(false);
    const allowed = await call("PUT", url, { token: administrator.tenantToken, body: { session_record: true } });
    expect(allowed.status).toBe(200);
    expect((await call("GET", "/api/users/security", { token: observer.tenantToken })).body).toBe(true);
  });

  it("works with an API key of its namespace", async () => {
    const namespace = await seedNamespace();
    const administratorKey = await seedApiKey(namespace, "administrator");
    const set = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
      apiKey: administratorKey,
      body: { session_record: true },
    });
    expect(set.status).toBe(200);
    const read = await call("GET", "/api/users/security", { apiKey: administratorKey });
    expect(read.status).toBe(200);
    expect(read.body).toBe(true);
  });

  it("answers 404 for another tenant's namespace and changes nothing", async () => {
    const [namespace, stranger] = await Promise.all([seedNamespace(), seedNamespace()]);
    const response = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
      token: stranger.owner.tenantToken,
      body: { session_record: true },
    });
    expect(response.status).toBe(404);
    expect((await call("GET", "/api/users/security", { token: namespace.owner.tenantToken })).body).toBe(false);
  });

  it("refuses a non-boolean session_record with 400", async () => {
    const namespace = await seedNamespace();
    const response = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { session_record: "true" },
    });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["session_record"]);
  });

  it("refuses a user without a namespace with 403 and anonymous callers with 401", async () => {
    const user = await seedUser();
    const noNamespace = await call("GET", "/api/users/security", { token: user.token });
    expect(noNamespace.status).toBe(403);
    expect(noNamespace.body).toEqual({ message: expect.any(String) });
    expect((await call("GET", "/api/users/security")).status).toBe(401);
  });
});
