import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { chosenKeyRefused } from "@/lib/schemas/api-keys";
import { call, uniqueName } from "@/testing/client";
import { type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser } from "@/testing/seeds/users";

const uuidV4Pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const keysUrl = "/api/namespaces/api-key";
const keyUrl = (name: string) => `${keysUrl}/${encodeURIComponent(name)}`;
/** The distinct field names of a 400 body's `fields`. */
const fieldNames = (body: unknown) => [
  ...new Set(((body as { fields?: { field: string }[] }).fields ?? []).map((item) => item.field)),
];

type ApiKey = {
  id?: string;
  tenant_id: string;
  created_by: string;
  role: string;
  name: string;
  expires_in: number;
  created_at: string;
  updated_at: string;
};

const createKey = (token: string, body: Record<string, unknown>) => call<ApiKey>("POST", keysUrl, { token, body });

async function listKeys(namespace: SeededNamespace, query = "per_page=100") {
  const response = await call<ApiKey[]>("GET", `${keysUrl}?${query}`, { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list failed: ${response.status} ${response.text}`);
  return response;
}

/** Whether the key may edit its namespace (administrator and up). */
const editWithKey = (namespace: SeededNamespace, key: string) =>
  call("PUT", `/api/namespaces/${namespace.tenantId}`, {
    apiKey: key,
    body: { settings: { connection_announcement: uniqueName("a") } },
  });

describe("create an API key", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });

  it("returns the key once, in id, and the list never shows it", async () => {
    const name = uniqueName("k");
    const before = Math.floor(Date.now() / 1000);
    const response = await createKey(namespace.owner.tenantToken, { name, expires_at: 30, role: "observer" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.stringMatching(uuidV4Pattern),
      tenant_id: namespace.tenantId,
      created_by: namespace.owner.id,
      role: "observer",
      name,
      expires_in: expect.any(Number),
      created_at: expect.stringMatching(isoPattern),
      updated_at: expect.stringMatching(isoPattern),
    });
    const key = response.body.id ?? "";
    expect(response.body.expires_in).toBeGreaterThanOrEqual(before + 30 * 86400 - 5);
    expect(response.body.expires_in).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86400 + 5);

    // The key works.
    const usable = await call("GET", `/api/namespaces/${namespace.tenantId}`, { apiKey: key });
    expect(usable.status).toBe(200);

    // Neither the list nor a get by any route shows it again.
    const list = await listKeys(namespace);
    const listed = list.body.find((item) => item.name === name);
    expect(listed).toEqual({
      tenant_id: namespace.tenantId,
      created_by: namespace.owner.id,
      role: "observer",
      name,
      expires_in: response.body.expires_in,
      created_at: response.body.created_at,
      updated_at: response.body.updated_at,
    });
    for (const item of list.body) expect(item).not.toHaveProperty("id");
    expect(list.text).not.toContain(key);
    const withKey = await call("GET", `${keysUrl}?per_page=100`, { apiKey: key });
    expect(withKey.status).toBe(200);
    expect(withKey.text).not.toContain(key);
  });

  it.each([
    [-1, null],
    [30, 30],
    [60, 60],
    [90, 90],
    [365, 365],
  ])("takes expires_at %d", async (expiresAt, days) => {
    const before = Math.floor(Date.now() / 1000);
    const response = await createKey(namespace.owner.tenantToken, { name: uniqueName("k"), expires_at: expiresAt });
    expect(response.status).toBe(200);
    if (days === null) {
      expect(response.body.expires_in).toBe(-1);
    } else {
      expect(response.body.expires_in).toBeGreaterThanOrEqual(before + days * 86400 - 5);
      expect(response.body.expires_in).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + days * 86400 + 5);
    }
  });

  it.each([
    ["0", 0],
    ["1", 1],
    ["7", 7],
    ["31", 31],
    ["-2", -2],
    ["366", 366],
    ["30.5", 30.5],
    ['"30" (a string)', "30"],
    ["null", null],
  ])("refuses expires_at %s with 400 and creates nothing", async (_label, expiresAt) => {
    const name = uniqueName("k");
    const response = await createKey(namespace.owner.tenantToken, { name, expires_at: expiresAt });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["expires_at"]);
    expect((await listKeys(namespace)).body.map((item) => item.name)).not.toContain(name);
  });

  it("refuses a missing expires_at with 400", async () => {
    const response = await createKey(namespace.owner.tenantToken, { name: uniqueName("k") });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["expires_at"]);
  });

  it.each([
    ["3 characters", "k3x"],
    ["20 characters", "k".repeat(10) + randomUUID().slice(0, 10)],
  ])("accepts a name of %s", async (_label, name) => {
    const other = await seedNamespace();
    const response = await createKey(other.owner.tenantToken, { name, expires_at: -1 });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(name);
  });

  it.each([
    ["too short", "ab"],
    ["too long", "k".repeat(21)],
    ["with a space", "my key"],
    ["with a slash", "my/key"],
    ["empty", ""],
    ["a number", 12345],
    ["missing", undefined],
  ])("refuses a name that is %s with 400", async (_label, name) => {
    const response = await createKey(namespace.owner.tenantToken, { name, expires_at: -1 });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["name"]);
  });

  it("answers 409 for a name used in the same namespace, not in another", async () => {
    const other = await seedNamespace();
    const name = uniqueName("k");
    expect((await createKey(namespace.owner.tenantToken, { name, expires_at: -1 })).status).toBe(200);
    const again = await createKey(namespace.owner.tenantToken, { name, expires_at: 30, role: "observer" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String) });
    expect((await listKeys(namespace)).body.filter((item) => item.name === name)).toHaveLength(1);
    expect((await createKey(other.owner.tenantToken, { name, expires_at: -1 })).status).toBe(200);
  });

  it("uses a given uuid v4 as the key", async () => {
    const key = randomUUID();
    const response = await createKey(namespace.owner.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      role: "observer",
      key,
    });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(key);
    const usable = await call("GET", "/api/namespaces", { apiKey: key });
    expect(usable.status).toBe(200);
    expect(usable.body.map((item: { tenant_id: string }) => item.tenant_id)).toEqual([namespace.tenantId]);
    // The same key again is refused as a too regular one is: creating keys reveals no live key.
    const again = await createKey(namespace.owner.tenantToken, { name: uniqueName("k"), expires_at: -1, key });
    const weak = await createKey(namespace.owner.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      key: "00000000-0000-4000-8000-000000000000",
    });
    for (const refused of [again, weak]) {
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ fields: [{ field: "key", message: chosenKeyRefused }] });
    }
  });

  it.each([
    "00000000-0000-4000-8000-000000000000",
    "01234567-89ab-4cde-8f01-23456789abcd",
    "deadbeef-dead-4eef-8ead-beefdeadbeef",
    "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
    "12341234-1234-4123-8123-412341234123",
  ])("refuses the guessable key %s with 400 and creates nothing", async (key) => {
    const name = uniqueName("k");
    const response = await createKey(namespace.owner.tenantToken, { name, expires_at: -1, key });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ fields: [{ field: "key", message: chosenKeyRefused }] });
    expect((await listKeys(namespace)).body.map((item) => item.name)).not.toContain(name);
  });

  it("makes a random key when key is blank", async () => {
    const response = await createKey(namespace.owner.tenantToken, { name: uniqueName("k"), expires_at: -1, key: "" });
    expect(response.status).toBe(200);
    expect(response.body.id).toMatch(uuidV4Pattern);
  });

  it.each([
    ["not a uuid", "not-a-uuid"],
    ["a version 1 uuid", "d9428888-122b-11e1-b85c-61cd3cbb3210"],
    ["a number", 42],
  ])("refuses a key that is %s with 400", async (_label, key) => {
    const response = await createKey(namespace.owner.tenantToken, { name: uniqueName("k"), expires_at: -1, key });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["key"]);
  });

  it("gives the creator's role when role is blank or missing", async () => {
    const administrator = await seedMember(namespace, "administrator");
    for (const body of [{ role: "" }, {}]) {
      const response = await createKey(administrator.tenantToken, { name: uniqueName("k"), expires_at: -1, ...body });
      expect(response.status).toBe(200);
      expect(response.body.role).toBe("administrator");
      expect(response.body.created_by).toBe(administrator.id);
    }
    const owner = await createKey(namespace.owner.tenantToken, { name: uniqueName("k"), expires_at: -1 });
    expect(owner.body.role).toBe("owner");
  });

  it("refuses a role above the creator's with 403 and creates nothing", async () => {
    const administrator = await seedMember(namespace, "administrator");
    const name = uniqueName("k");
    const response = await createKey(administrator.tenantToken, { name, expires_at: -1, role: "owner" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await listKeys(namespace)).body.map((item) => item.name)).not.toContain(name);
    for (const role of ["administrator", "operator", "observer"]) {
      const allowed = await createKey(administrator.tenantToken, { name: uniqueName("k"), expires_at: -1, role });
      expect(allowed.status).toBe(200);
      expect(allowed.body.role).toBe(role);
    }
  });

  it("refuses an unknown role with 400", async () => {
    const response = await createKey(namespace.owner.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      role: "superuser",
    });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual(["role"]);
  });

  it("refuses operators and observers with 403", async () => {
    const [operator, observer] = await Promise.all([
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    for (const member of [operator, observer]) {
      const response = await createKey(member.tenantToken, { name: uniqueName("k"), expires_at: -1, role: "observer" });
      expect(response.status).toBe(403);
    }
  });

  it("creates a name once when it is asked for many times at once (one 200, the rest 409)", async () => {
    const name = uniqueName("k");
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await listKeys(namespace)).body.filter((item) => item.name === name)).toHaveLength(1);
  });

  it("ignores tenant_id and created_by in the body", async () => {
    const other = await seedNamespace();
    const response = await createKey(namespace.owner.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      tenant_id: other.tenantId,
      created_by: other.owner.id,
    });
    expect(response.status).toBe(200);
    expect(response.body.tenant_id).toBe(namespace.tenantId);
    expect(response.body.created_by).toBe(namespace.owner.id);
    expect((await listKeys(other)).body).toEqual([]);
  });
});

describe("list API keys", () => {
  let namespace: SeededNamespace;
  let names: { never: string; month: string; year: string };
  beforeAll(async () => {
    namespace = await seedNamespace();
    names = { never: `b${uniqueName("k")}`, month: `c${uniqueName("k")}`, year: `a${uniqueName("k")}` };
    for (const [name, expiresAt] of [
      [names.never, -1],
      [names.month, 30],
      [names.year, 365],
    ] as const) {
      const response = await createKey(namespace.owner.tenantToken, { name, expires_at: expiresAt, role: "observer" });
      if (response.status !== 200) throw new Error(`create failed: ${response.text}`);
    }
    // Another namespace's keys never show.
    await seedApiKey(await seedNamespace(), "observer");
  });

  const namesOf = (body: ApiKey[]) => body.map((item) => item.name);

  it("lists the namespace's keys with X-Total-Count, by expires_in descending by default", async () => {
    const response = await listKeys(namespace, "");
    expect(response.headers.get("x-total-count")).toBe("3");
    expect(namesOf(response.body)).toEqual([names.year, names.month, names.never]);
  });

  it("sorts by name, expires_in and role in either order", async () => {
    const sorted = [names.year, names.never, names.month];
    expect(namesOf((await listKeys(namespace, "sort_by=name&order_by=asc")).body)).toEqual(sorted);
    expect(namesOf((await listKeys(namespace, "sort_by=name&order_by=desc")).body)).toEqual([...sorted].reverse());
    expect(namesOf((await listKeys(namespace, "sort_by=expires_in&order_by=asc")).body)).toEqual([
      names.never,
      names.month,
      names.year,
    ]);
    for (const sortBy of ["created_at", "updated_at", "role"]) {
      const response = await listKeys(namespace, `sort_by=${sortBy}&order_by=asc`);
      expect(response.body).toHaveLength(3);
    }
  });

  it("pages with page and per_page", async () => {
    const first = await listKeys(namespace, "sort_by=name&order_by=asc&per_page=2&page=1");
    expect(namesOf(first.body)).toEqual([names.year, names.never]);
    expect(first.headers.get("x-total-count")).toBe("3");
    const second = await listKeys(namespace, "sort_by=name&order_by=asc&per_page=2&page=2");
    expect(namesOf(second.body)).toEqual([names.month]);
    expect(second.headers.get("x-total-count")).toBe("3");
  });

  it.each([
    ["sort_by=key", "sort_by"],
    ["sort_by=id", "sort_by"],
    ["sort_by=key_hash", "sort_by"],
    ["order_by=up", "order_by"],
    ["page=0", "page"],
    ["per_page=0", "per_page"],
    ["per_page=101", "per_page"],
    ["per_page=abc", "per_page"],
  ])("refuses %s with 400", async (query, field) => {
    const response = await call("GET", `${keysUrl}?${query}`, { token: namespace.owner.tenantToken });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual([field]);
  });

  it("lets observers and API keys list", async () => {
    const observer = await seedMember(namespace, "observer");
    const byObserver = await call("GET", keysUrl, { token: observer.tenantToken });
    expect(byObserver.status).toBe(200);
    expect(byObserver.headers.get("x-total-count")).toBe("3");
    const key = await seedApiKey(namespace, "observer");
    const byKey = await call("GET", keysUrl, { apiKey: key });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get("x-total-count")).toBe("4");
  });
});

describe("update and delete an API key", () => {
  it("renames a key; the old name is gone, the key itself still works", async () => {
    const namespace = await seedNamespace();
    const name = uniqueName("k");
    const created = await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    const newName = uniqueName("k");
    const response = await call("PATCH", keyUrl(name), { token: namespace.owner.tenantToken, body: { name: newName } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created.body, id: undefined, name: newName, updated_at: expect.any(String) });
    expect(response.body).not.toHaveProperty("id");
    expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    expect((await listKeys(namespace)).body.map((item) => item.name)).toEqual([newName]);
    const old = await call("PATCH", keyUrl(name), {
      token: namespace.owner.tenantToken,
      body: { name: uniqueName("k") },
    });
    expect(old.status).toBe(404);
    expect((await call("GET", keysUrl, { apiKey: created.body.id })).status).toBe(200);
  });

  it("changes a key's role, and the key acts with the new role at once", async () => {
    const namespace = await seedNamespace();
    const name = uniqueName("k");
    const created = await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "administrator" });
    const key = created.body.id ?? "";
    expect((await editWithKey(namespace, key)).status).toBe(200);
    const response = await call("PATCH", keyUrl(name), {
      token: namespace.owner.tenantToken,
      body: { role: "observer" },
    });
    expect(response.status).toBe(200);
    expect(response.body.role).toBe("observer");
    expect(response.body.name).toBe(name);
    expect((await editWithKey(namespace, key)).status).toBe(403);
    expect((await call("GET", `/api/namespaces/${namespace.tenantId}`, { apiKey: key })).status).toBe(200);
  });

  it("answers 409 when renaming to a name in use, and changes nothing", async () => {
    const namespace = await seedNamespace();
    const [first, second] = [uniqueName("k"), uniqueName("k")];
    await createKey(namespace.owner.tenantToken, { name: first, expires_at: -1, role: "observer" });
    await createKey(namespace.owner.tenantToken, { name: second, expires_at: -1, role: "observer" });
    const response = await call("PATCH", keyUrl(first), {
      token: namespace.owner.tenantToken,
      body: { name: second, role: "operator" },
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: expect.any(String) });
    const list = await listKeys(namespace, "sort_by=name&order_by=asc");
    expect(list.body.map((item) => [item.name, item.role])).toEqual(
      [
        [first, "observer"],
        [second, "observer"],
      ].sort(),
    );
  });

  it("refuses roles above the caller's, and keys whose role is above the caller's", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const ownerKeyName = uniqueName("k");
    const mineName = uniqueName("k");
    await createKey(namespace.owner.tenantToken, { name: ownerKeyName, expires_at: -1, role: "owner" });
    await createKey(administrator.tenantToken, { name: mineName, expires_at: -1, role: "observer" });
    const promote = await call("PATCH", keyUrl(mineName), {
      token: administrator.tenantToken,
      body: { role: "owner" },
    });
    expect(promote.status).toBe(403);
    const renameOwnerKey = await call("PATCH", keyUrl(ownerKeyName), {
      token: administrator.tenantToken,
      body: { name: uniqueName("k") },
    });
    expect(renameOwnerKey.status).toBe(403);
    const deleteOwnerKey = await call("DELETE", keyUrl(ownerKeyName), { token: administrator.tenantToken });
    expect(deleteOwnerKey.status).toBe(403);
    const list = await listKeys(namespace, "sort_by=name&order_by=asc");
    expect(Object.fromEntries(list.body.map((item) => [item.name, item.role]))).toEqual({
      [ownerKeyName]: "owner",
      [mineName]: "observer",
    });
    const allowed = await call("PATCH", keyUrl(mineName), {
      token: administrator.tenantToken,
      body: { role: "administrator" },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.role).toBe("administrator");
  });

  it.each([
    ["a short name", { name: "ab" }, "name"],
    ["a long name", { name: "k".repeat(21) }, "name"],
    ["an unknown role", { role: "root" }, "role"],
  ])("refuses %s with 400", async (_label, body, field) => {
    const namespace = await seedNamespace();
    const name = uniqueName("k");
    await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    const response = await call("PATCH", keyUrl(name), { token: namespace.owner.tenantToken, body });
    expect(response.status).toBe(400);
    expect(fieldNames(response.body)).toEqual([field]);
    expect((await listKeys(namespace)).body.map((item) => [item.name, item.role])).toEqual([[name, "observer"]]);
  });

  it("deletes a key: it stops working, leaves the list, and a second delete is a 404", async () => {
    const namespace = await seedNamespace();
    const name = uniqueName("k");
    const created = await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    const key = created.body.id ?? "";
    expect((await call("GET", keysUrl, { apiKey: key })).status).toBe(200);
    const deleted = await call("DELETE", keyUrl(name), { token: namespace.owner.tenantToken });
    expect(deleted.status).toBe(200);
    const refused = await call("GET", keysUrl, { apiKey: key });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: expect.any(String) });
    expect((await listKeys(namespace)).body).toEqual([]);
    expect((await call("DELETE", keyUrl(name), { token: namespace.owner.tenantToken })).status).toBe(404);
  });

  it("updates and deletes a key whose name holds URL-special characters", async () => {
    const namespace = await seedNamespace();
    const name = `q?#%&+${uniqueName("")}`;
    const created = await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    expect(created.status).toBe(200);
    expect(created.body.name).toBe(name);
    const renamed = `r?#%&+${uniqueName("")}`;
    const update = await call("PATCH", keyUrl(name), { token: namespace.owner.tenantToken, body: { name: renamed } });
    expect(update.status).toBe(200);
    expect(update.body.name).toBe(renamed);
    expect((await call("DELETE", keyUrl(renamed), { token: namespace.owner.tenantToken })).status).toBe(200);
    expect((await listKeys(namespace)).body).toEqual([]);
  });

  it("answers 404 for another namespace's key and leaves it alone", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const name = uniqueName("k");
    const created = await createKey(other.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    const rename = await call("PATCH", keyUrl(name), { token: namespace.owner.tenantToken, body: { role: "owner" } });
    expect(rename.status).toBe(404);
    expect((await call("DELETE", keyUrl(name), { token: namespace.owner.tenantToken })).status).toBe(404);
    expect((await call("GET", keysUrl, { apiKey: created.body.id })).status).toBe(200);
    expect((await listKeys(other)).body.map((item) => [item.name, item.role])).toEqual([[name, "observer"]]);
  });

  it("refuses operators and observers with 403", async () => {
    const namespace = await seedNamespace();
    const [operator, observer] = await Promise.all([
      seedMember(namespace, "operator"),
      seedMember(namespace, "observer"),
    ]);
    const name = uniqueName("k");
    await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    for (const member of [operator, observer]) {
      expect(
        (await call("PATCH", keyUrl(name), { token: member.tenantToken, body: { name: "x-renamed" } })).status,
      ).toBe(403);
      expect((await call("DELETE", keyUrl(name), { token: member.tenantToken })).status).toBe(403);
    }
    expect((await listKeys(namespace)).body.map((item) => item.name)).toEqual([name]);
  });
});

describe("API keys as credentials", () => {
  it("X-API-KEY wins over a JWT", async () => {
    const namespace = await seedNamespace();
    const observerKey = await seedApiKey(namespace, "observer");
    const both = { apiKey: observerKey, token: namespace.owner.tenantToken };
    const edit = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      ...both,
      body: { settings: { connection_announcement: "by key" } },
    });
    expect(edit.status).toBe(403);
    const read = await call("GET", `/api/namespaces/${namespace.tenantId}`, both);
    expect(read.status).toBe(200);
    expect(read.body.settings.connection_announcement).toBe("");
    // A user route refuses the key even next to a valid JWT.
    const user = await call("GET", "/api/auth/user", both);
    expect(user.status).toBe(403);
    // A bad key next to a valid JWT is a 401: the JWT is not tried.
    const badKey = await call("GET", `/api/namespaces/${namespace.tenantId}`, {
      apiKey: randomUUID(),
      token: namespace.owner.tenantToken,
    });
    expect(badKey.status).toBe(401);
  });

  it("the key's namespace wins over the JWT's", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const key = await seedApiKey(other, "observer");
    const list = await call("GET", "/api/namespaces", { apiKey: key, token: namespace.owner.tenantToken });
    expect(list.status).toBe(200);
    expect(list.body.map((item: { tenant_id: string }) => item.tenant_id)).toEqual([other.tenantId]);
    const read = await call("GET", `/api/namespaces/${namespace.tenantId}`, {
      apiKey: key,
      token: namespace.owner.tenantToken,
    });
    expect(read.status).toBe(404);
  });

  it("refuses API keys on create, update and delete of API keys, even an owner-role key; allows list", async () => {
    const namespace = await seedNamespace();
    const ownerKey = await seedApiKey(namespace, "owner");
    const name = uniqueName("k");
    await createKey(namespace.owner.tenantToken, { name, expires_at: -1, role: "observer" });
    const create = await call("POST", keysUrl, {
      apiKey: ownerKey,
      body: { name: uniqueName("k"), expires_at: -1, role: "observer" },
    });
    expect(create.status).toBe(403);
    expect(create.body).toEqual({ message: expect.any(String) });
    const update = await call("PATCH", keyUrl(name), { apiKey: ownerKey, body: { role: "owner" } });
    expect(update.status).toBe(403);
    const remove = await call("DELETE", keyUrl(name), { apiKey: ownerKey });
    expect(remove.status).toBe(403);
    const list = await call<ApiKey[]>("GET", `${keysUrl}?sort_by=name`, { apiKey: ownerKey });
    expect(list.status).toBe(200);
    expect(list.headers.get("x-total-count")).toBe("2");
    expect(list.body.find((item) => item.name === name)?.role).toBe("observer");
  });

  it("acts with the lower of its role and its creator's current role", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const created = await createKey(administrator.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      role: "administrator",
    });
    expect(created.status).toBe(200);
    const key = created.body.id ?? "";
    expect((await editWithKey(namespace, key)).status).toBe(200);

    const demote = await call("PATCH", `/api/namespaces/${namespace.tenantId}/members/${administrator.id}`, {
      token: namespace.owner.tenantToken,
      body: { role: "observer" },
    });
    expect(demote.status).toBe(200);
    expect((await editWithKey(namespace, key)).status).toBe(403);
    expect((await call("GET", `/api/namespaces/${namespace.tenantId}`, { apiKey: key })).status).toBe(200);
    const user = await seedUser();
    const add = await call("POST", `/api/namespaces/${namespace.tenantId}/members`, {
      apiKey: key,
      body: { identifier: user.username, role: "observer" },
    });
    expect(add.status).toBe(403);
    // The stored role is unchanged: promoted again, the creator's key regains it.
    const listed = await listKeys(namespace);
    expect(listed.body.find((item) => item.name === created.body.name)?.role).toBe("administrator");
    const promote = await call("PATCH", `/api/namespaces/${namespace.tenantId}/members/${administrator.id}`, {
      token: namespace.owner.tenantToken,
      body: { role: "administrator" },
    });
    expect(promote.status).toBe(200);
    expect((await editWithKey(namespace, key)).status).toBe(200);
  });

  it("an owner-role key acts with its role, not above", async () => {
    const namespace = await seedNamespace();
    const operatorKey = await seedApiKey(namespace, "operator");
    expect((await editWithKey(namespace, operatorKey)).status).toBe(403);
    const ownerKey = await seedApiKey(namespace, "owner");
    expect((await editWithKey(namespace, ownerKey)).status).toBe(200);
  });

  it("stops working (401) when its creator leaves the namespace", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const created = await createKey(administrator.tenantToken, {
      name: uniqueName("k"),
      expires_at: -1,
      role: "observer",
    });
    const key = created.body.id ?? "";
    expect((await call("GET", keysUrl, { apiKey: key })).status).toBe(200);
    const removed = await call("DELETE", `/api/namespaces/${namespace.tenantId}/members/${administrator.id}`, {
      token: namespace.owner.tenantToken,
    });
    expect(removed.status).toBe(200);
    for (const path of [keysUrl, "/api/namespaces", `/api/namespaces/${namespace.tenantId}`]) {
      const response = await call("GET", path, { apiKey: key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });

  it("ends with its creator's membership: invited back, the creator does not get the key back", async () => {
    const namespace = await seedNamespace();
    const administrator = await seedMember(namespace, "administrator");
    const name = uniqueName("k");
    const created = await createKey(administrator.tenantToken, { name, expires_at: -1, role: "observer" });
    const key = created.body.id ?? "";
    const membersPath = `/api/namespaces/${namespace.tenantId}/members`;
    const owner = { token: namespace.owner.tenantToken };
    expect((await call("DELETE", `${membersPath}/${administrator.id}`, owner)).status).toBe(200);
    const invited = await call("POST", membersPath, {
      ...owner,
      body: { identifier: administrator.username, role: "administrator" },
    });
    expect(invited.status).toBe(200);
    expect((await call("GET", keysUrl, { apiKey: key })).status).toBe(401);
    expect((await listKeys(namespace)).body.map((item) => item.name)).not.toContain(name);
  });

  it("answers 401 for an unknown or empty key", async () => {
    for (const apiKey of [randomUUID(), "not-a-key"]) {
      const response = await call("GET", keysUrl, { apiKey });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
    const empty = await call("GET", keysUrl, { headers: { "x-api-key": " " } });
    expect(empty.status).toBe(401);
    expect(empty.body).toEqual({ message: expect.any(String) });
  });

  it("cannot reach another namespace through the path", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const ownerKey = await seedApiKey(namespace, "owner");
    const attempts = await Promise.all([
      call("GET", `/api/namespaces/${other.tenantId}`, { apiKey: ownerKey }),
      call("PUT", `/api/namespaces/${other.tenantId}`, { apiKey: ownerKey, body: { name: uniqueName("ns") } }),
      call("DELETE", `/api/namespaces/${other.tenantId}`, { apiKey: ownerKey }),
      call("PUT", `/api/users/security/${other.tenantId}`, { apiKey: ownerKey, body: { session_record: true } }),
    ]);
    expect(attempts.map((response) => response.status)).toEqual([404, 404, 404, 404]);
    const read = await call("GET", `/api/namespaces/${other.tenantId}`, { token: other.owner.tenantToken });
    expect(read.body.name).toBe(other.name);
    expect(read.body.settings.session_record).toBe(false);
  });
});
