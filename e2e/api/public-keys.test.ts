import { beforeAll, describe, expect, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { type SeededNamespace, seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";
import { base64Of, randomEd25519Line, sshKeygen } from "@/testing/ssh-keys";

const keysUrl = "/api/sshkeys/public-keys";
const keyUrl = (fingerprint: string) => `${keysUrl}/${fingerprint}`;
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const fingerprintPattern = /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/;
const encodeFilter = (value: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString("base64"));

type PublicKey = {
  data: string;
  fingerprint: string;
  created_at: string;
  tenant_id: string;
  name: string;
  filter: { hostname: string } | { tags: string[] };
  username: string;
};

const keyBody = (overrides: Record<string, unknown> = {}) => ({
  data: base64Of(randomEd25519Line()),
  name: uniqueName("key"),
  username: ".*",
  filter: { hostname: ".*" },
  ...overrides,
});

async function createKey(namespace: SeededNamespace, overrides: Record<string, unknown> = {}) {
  const response = await call<PublicKey>("POST", keysUrl, {
    token: namespace.owner.tenantToken,
    body: keyBody(overrides),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function listKeys(namespace: SeededNamespace, query = "per_page=100") {
  const response = await call<PublicKey[]>("GET", `${keysUrl}?${query}`, { token: namespace.owner.tenantToken });
  expect(response.status, response.text).toBe(200);
  return response;
}

describe("create a public key", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });

  it.each([
    ["ed25519", undefined],
    ["rsa", 3072],
    ["ecdsa", 256],
    ["ecdsa", 521],
  ] as const)("stores a real %s key (%s bits) with the fingerprint ssh-keygen shows", async (type, bits) => {
    const key = await sshKeygen(type, bits);
    const body = { data: key.data, name: "Laptop key", username: "^root$", filter: { hostname: "^web-[0-9]+$" } };
    const response = await call<PublicKey>("POST", keysUrl, { token: namespace.owner.tenantToken, body });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      data: key.data,
      fingerprint: key.fingerprint,
      created_at: expect.stringMatching(isoPattern),
      tenant_id: namespace.tenantId,
      name: "Laptop key",
      filter: { hostname: "^web-[0-9]+$" },
      username: "^root$",
    });
    const listed = (await listKeys(namespace)).body.find((item) => item.fingerprint === key.fingerprint);
    expect(listed).toEqual(response.body);
  });

  it("keeps a tags filter, and ignores a fingerprint or tenant sent by the client", async () => {
    const other = await seedNamespace();
    const response = await call<PublicKey>("POST", keysUrl, {
      token: namespace.owner.tenantToken,
      body: keyBody({
        filter: { tags: ["prod", "eu-west"] },
        fingerprint: "00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00",
        tenant_id: other.tenantId,
        created_at: "2000-01-01T00:00:00Z",
      }),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.filter).toEqual({ tags: ["prod", "eu-west"] });
    expect(response.body.fingerprint).toMatch(fingerprintPattern);
    expect(response.body.fingerprint).not.toBe("00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00");
    expect(response.body.tenant_id).toBe(namespace.tenantId);
    expect(response.body.created_at.startsWith("2000")).toBe(false);
    expect((await listKeys(other)).body).toEqual([]);
  });

  it("refuses the same key twice in a namespace (409), whatever the comment, and keeps the first", async () => {
    const line = randomEd25519Line("first@host");
    const first = await createKey(namespace, { data: base64Of(line), name: "first" });
    const again = await call("POST", keysUrl, {
      token: namespace.owner.tenantToken,
      body: keyBody({ data: base64Of(line.replace("first@host", "second@host")), name: "second" }),
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: expect.any(String) });
    const same = (await listKeys(namespace)).body.filter((item) => item.fingerprint === first.fingerprint);
    expect(same.map((item) => item.name)).toEqual(["first"]);
  });

  it("accepts the same key in another namespace", async () => {
    const data = base64Of(randomEd25519Line());
    const mine = await createKey(namespace, { data });
    const theirs = await createKey(await seedNamespace(), { data });
    expect(theirs.fingerprint).toBe(mine.fingerprint);
    expect(theirs.tenant_id).not.toBe(mine.tenant_id);
  });
});

describe("list public keys", () => {
  let namespace: SeededNamespace;
  let created: PublicKey[];
  beforeAll(async () => {
    namespace = await seedNamespace();
    created = [];
    for (const name of ["alpha", "bravo", "charlie", "delta", "echo"])
      created.push(await createKey(namespace, { name }));
    await createKey(await seedNamespace(), { name: "other-tenant" });
  });

  it("lists only the namespace's keys, newest first, with X-Total-Count", async () => {
    const response = await listKeys(namespace);
    expect(response.headers.get("x-total-count")).toBe("5");
    expect(response.body.map((item) => item.name)).toEqual(["echo", "delta", "charlie", "bravo", "alpha"]);
    expect(response.body).toEqual([...created].reverse());
  });

  it("pages with page and per_page; a page past the end is empty", async () => {
    const first = await listKeys(namespace, "page=1&per_page=2");
    const second = await listKeys(namespace, "page=2&per_page=2");
    const third = await listKeys(namespace, "page=3&per_page=2");
    const beyond = await listKeys(namespace, "page=9&per_page=2");
    expect([first, second, third, beyond].map((page) => page.headers.get("x-total-count"))).toEqual([
      "5",
      "5",
      "5",
      "5",
    ]);
    expect([...first.body, ...second.body, ...third.body].map((item) => item.name)).toEqual([
      "echo",
      "delta",
      "charlie",
      "bravo",
      "alpha",
    ]);
    expect(beyond.body).toEqual([]);
  });

  it("defaults to 10 per page", async () => {
    const many = await seedNamespace();
    for (let index = 0; index < 11; index++) await createKey(many);
    const response = await listKeys(many, "");
    expect(response.headers.get("x-total-count")).toBe("11");
    expect(response.body).toHaveLength(10);
  });

  it("filters by name with the base64 filter", async () => {
    const filter = encodeFilter([{ type: "property", params: { name: "name", operator: "contains", value: "ar" } }]);
    const response = await listKeys(namespace, `filter=${filter}`);
    expect(response.body.map((item) => item.name)).toEqual(["charlie"]);
    expect(response.headers.get("x-total-count")).toBe("1");
  });

  it("lets an observer API key read", async () => {
    const response = await call("GET", keysUrl, { apiKey: await seedApiKey(namespace, "observer") });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("5");
  });
});

describe("update and delete a public key", () => {
  let namespace: SeededNamespace;
  let outsider: SeededNamespace;
  beforeAll(async () => {
    [namespace, outsider] = await Promise.all([seedNamespace(), seedNamespace()]);
  });

  it("replaces name, username and filter; data, fingerprint and created_at stay", async () => {
    const key = await createKey(namespace);
    const response = await call<PublicKey>("PUT", keyUrl(key.fingerprint), {
      token: namespace.owner.tenantToken,
      body: { name: "renamed", username: "^(deploy|ops)$", filter: { tags: ["prod"] }, data: "ignored" },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...key, name: "renamed", username: "^(deploy|ops)$", filter: { tags: ["prod"] } });
    expect((await listKeys(namespace)).body).toContainEqual(response.body);
  });

  it("refuses an update whose regex the engine cannot run, and changes nothing", async () => {
    const key = await createKey(namespace);
    const response = await call("PUT", keyUrl(key.fingerprint), {
      token: namespace.owner.tenantToken,
      body: { name: "renamed", username: "(a+)\\1", filter: { hostname: ".*" } },
    });
    expect(response.status).toBe(400);
    expect(response.body.fields.map((item: { field: string }) => item.field)).toEqual(["username"]);
    expect((await listKeys(namespace)).body).toContainEqual(key);
  });

  it("answers 404 for an unknown fingerprint and 400 for a malformed one", async () => {
    const body = { name: "x", username: ".*", filter: { hostname: ".*" } };
    const unknown = "0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f:0f";
    const token = namespace.owner.tenantToken;
    expect((await call("PUT", keyUrl(unknown), { token, body })).status).toBe(404);
    expect((await call("DELETE", keyUrl(unknown), { token })).status).toBe(404);
    const malformed = await call("PUT", keyUrl("not-a-fingerprint"), { token, body });
    expect(malformed.status).toBe(400);
    expect(malformed.body.fields).toEqual([{ field: "fingerprint", message: expect.any(String) }]);
  });

  it("deletes a key: gone from the list, a second delete is a 404", async () => {
    const key = await createKey(namespace);
    const kept = await createKey(namespace);
    const token = namespace.owner.tenantToken;
    const response = await call("DELETE", keyUrl(key.fingerprint), { token });
    expect(response.status).toBe(200);
    const fingerprints = (await listKeys(namespace)).body.map((item) => item.fingerprint);
    expect(fingerprints).not.toContain(key.fingerprint);
    expect(fingerprints).toContain(kept.fingerprint);
    expect((await call("DELETE", keyUrl(key.fingerprint), { token })).status).toBe(404);
  });

  it("answers 404 to another namespace for every operation on a key, and changes nothing", async () => {
    const key = await createKey(namespace, { filter: { tags: ["prod", "staging"] } });
    const apiKey = await seedApiKey(outsider, "owner");
    for (const credentials of [{ token: outsider.owner.tenantToken }, { apiKey }]) {
      const statuses = await Promise.all([
        call("PUT", keyUrl(key.fingerprint), {
          ...credentials,
          body: { name: "stolen", username: ".*", filter: { hostname: ".*" } },
        }),
        call("POST", `${keyUrl(key.fingerprint)}/tags`, { ...credentials, body: { tag: "stolen" } }),
        call("PUT", `${keyUrl(key.fingerprint)}/tags`, { ...credentials, body: { tags: ["stolen"] } }),
        call("DELETE", `${keyUrl(key.fingerprint)}/tags/prod`, credentials),
        call("DELETE", keyUrl(key.fingerprint), credentials),
      ]);
      expect(statuses.map((response) => response.status)).toEqual([404, 404, 404, 404, 404]);
      for (const response of statuses) expect(response.body).toEqual({ message: expect.any(String) });
    }
    expect((await listKeys(namespace)).body).toContainEqual(key);
    expect((await listKeys(outsider)).body).toEqual([]);
  });
});

describe("public key tags", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });
  const tagsUrl = (key: PublicKey) => `${keyUrl(key.fingerprint)}/tags`;
  const send = (method: string, url: string, body?: unknown) =>
    call<PublicKey>(method, url, { token: namespace.owner.tenantToken, body });
  const filterOf = async (key: PublicKey) =>
    (await listKeys(namespace)).body.find((item) => item.fingerprint === key.fingerprint)?.filter;

  it("adds tags up to 3; a 4th or a duplicate is a 409 and changes nothing", async () => {
    const key = await createKey(namespace, { filter: { tags: ["prod"] } });
    const added = await send("POST", tagsUrl(key), { tag: "eu-west" });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({ ...key, filter: { tags: ["prod", "eu-west"] } });
    expect((await send("POST", tagsUrl(key), { tag: "eu-west" })).status).toBe(409);
    expect((await send("POST", tagsUrl(key), { tag: "web" })).status).toBe(200);
    const fourth = await send("POST", tagsUrl(key), { tag: "db-servers" });
    expect(fourth.status).toBe(409);
    expect(await filterOf(key)).toEqual({ tags: ["prod", "eu-west", "web"] });
  });

  it("refuses to add a tag to a hostname filter (409): only a replace switches the filter", async () => {
    const key = await createKey(namespace, { filter: { hostname: "^web-" } });
    const response = await send("POST", tagsUrl(key), { tag: "prod" });
    expect(response.status).toBe(409);
    expect(await filterOf(key)).toEqual({ hostname: "^web-" });
    const replaced = await send("PUT", tagsUrl(key), { tags: ["prod", "web"] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.filter).toEqual({ tags: ["prod", "web"] });
    expect(await filterOf(key)).toEqual({ tags: ["prod", "web"] });
  });

  it("replaces the tags of a tags filter", async () => {
    const key = await createKey(namespace, { filter: { tags: ["aaa", "bbb", "ccc"] } });
    const response = await send("PUT", tagsUrl(key), { tags: ["ddd"] });
    expect(response.status).toBe(200);
    expect(await filterOf(key)).toEqual({ tags: ["ddd"] });
  });

  it("removes a tag; an absent tag is a 404; the last tag stays (409)", async () => {
    const key = await createKey(namespace, { filter: { tags: ["prod", "eu west"] } });
    const removed = await send("DELETE", `${tagsUrl(key)}/${encodeURIComponent("eu west")}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.filter).toEqual({ tags: ["prod"] });
    expect((await send("DELETE", `${tagsUrl(key)}/staging`)).status).toBe(404);
    expect((await send("DELETE", `${tagsUrl(key)}/prod`)).status).toBe(409);
    expect(await filterOf(key)).toEqual({ tags: ["prod"] });
  });

  it("answers 404 when removing a tag from a hostname filter, and 400 for a malformed tag", async () => {
    const key = await createKey(namespace, { filter: { hostname: ".*" } });
    expect((await send("DELETE", `${tagsUrl(key)}/prod`)).status).toBe(404);
    const malformed = await send("DELETE", `${tagsUrl(key)}/ab`);
    expect(malformed.status).toBe(400);
    expect(await filterOf(key)).toEqual({ hostname: ".*" });
  });

  it("keeps every tag when two are added at once", async () => {
    const key = await createKey(namespace, { filter: { tags: ["base"] } });
    const responses = await Promise.all([
      send("POST", tagsUrl(key), { tag: "first" }),
      send("POST", tagsUrl(key), { tag: "second" }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    const filter = (await filterOf(key)) as { tags: string[] };
    expect([...filter.tags].sort()).toEqual(["base", "first", "second"]);
  });
});
