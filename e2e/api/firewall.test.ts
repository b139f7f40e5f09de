import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/lib/api";
import { firewallOperations } from "@/lib/api/firewall";
import { call, randomUid, uniqueName } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";

const rulesUrl = "/api/firewall/rules";
const ruleUrl = (id: string) => `${rulesUrl}/${id}`;

type Rule = {
  id: string;
  tenant_id: string;
  action: "allow" | "deny";
  active: boolean;
  filter: { hostname: string } | { tags: string[] };
  priority: number;
  source_ip: string;
  username: string;
};

const ruleBody = (overrides: Partial<Omit<Rule, "id" | "tenant_id">> = {}) => ({
  action: "deny",
  active: true,
  priority: 10,
  source_ip: "^192\\.0\\.2\\.",
  username: "^root$",
  filter: { hostname: "^web-" },
  ...overrides,
});

async function createRule(namespace: SeededNamespace, overrides: Partial<Omit<Rule, "id" | "tenant_id">> = {}) {
  const response = await call<Rule>("POST", rulesUrl, {
    token: namespace.owner.tenantToken,
    body: ruleBody(overrides),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function listRules(namespace: SeededNamespace, query = "per_page=100") {
  const response = await call<Rule[]>("GET", `${rulesUrl}?${query}`, { token: namespace.owner.tenantToken });
  expect(response.status, response.text).toBe(200);
  return response;
}

async function getRule(namespace: SeededNamespace, id: string) {
  return call<Rule>("GET", ruleUrl(id), { token: namespace.owner.tenantToken });
}

describe("firewall rules", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });

  it("creates a rule: the id is a string of digits; get answers the same rule", async () => {
    const response = await call<Rule>("POST", rulesUrl, {
      token: namespace.owner.tenantToken,
      body: { ...ruleBody({ filter: { tags: ["prod", "eu-west"] } }), id: "7", tenant_id: uniqueName("t") },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      tenant_id: namespace.tenantId,
      action: "deny",
      active: true,
      filter: { tags: ["prod", "eu-west"] },
      priority: 10,
      source_ip: "^192\\.0\\.2\\.",
      username: "^root$",
    });
    const read = await getRule(namespace, response.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it("accepts priority 0 and an inactive allow rule", async () => {
    const rule = await createRule(namespace, { priority: 0, active: false, action: "allow" });
    expect(rule).toMatchObject({ priority: 0, active: false, action: "allow" });
  });

  it("lists in evaluation order (priority, then id) with X-Total-Count and pages", async () => {
    const ordered = await seedNamespace();
    const third = await createRule(ordered, { priority: 5 });
    const first = await createRule(ordered, { priority: 1 });
    const fourth = await createRule(ordered, { priority: 5 });
    const second = await createRule(ordered, { priority: 2 });
    const all = await listRules(ordered);
    expect(all.headers.get("x-total-count")).toBe("4");
    expect(all.body.map((rule) => rule.id)).toEqual([first.id, second.id, third.id, fourth.id]);
    expect(all.body[0]).toEqual(first);
    const page = await listRules(ordered, "page=2&per_page=3");
    expect(page.headers.get("x-total-count")).toBe("4");
    expect(page.body.map((rule) => rule.id)).toEqual([fourth.id]);
    expect((await listRules(ordered, "page=3&per_page=3")).body).toEqual([]);
  });

  it("updates every field of a rule (PUT replaces it)", async () => {
    const rule = await createRule(namespace);
    const body = ruleBody({
      action: "allow",
      active: false,
      priority: 3,
      source_ip: ".*",
      username: "^(deploy|ops)$",
      filter: { tags: ["db-servers"] },
    });
    const response = await call<Rule>("PUT", ruleUrl(rule.id), { token: namespace.owner.tenantToken, body });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ id: rule.id, tenant_id: namespace.tenantId, ...body });
    expect((await getRule(namespace, rule.id)).body).toEqual(response.body);
  });

  it("refuses regexes the engine cannot run on update, and changes nothing", async () => {
    const rule = await createRule(namespace);
    const response = await call("PUT", ruleUrl(rule.id), {
      token: namespace.owner.tenantToken,
      body: ruleBody({ source_ip: "^(10|192)\\.(?=0)", filter: { hostname: "(web)\\1" } }),
    });
    expect(response.status).toBe(400);
    expect(response.body.fields.map((item: { field: string }) => item.field).sort()).toEqual([
      "filter.hostname",
      "source_ip",
    ]);
    expect((await getRule(namespace, rule.id)).body).toEqual(rule);
  });

  it("deletes a rule: get is then a 404, and so is a second delete", async () => {
    const rule = await createRule(namespace);
    const token = namespace.owner.tenantToken;
    expect((await call("DELETE", ruleUrl(rule.id), { token })).status).toBe(200);
    expect((await getRule(namespace, rule.id)).status).toBe(404);
    expect((await call("DELETE", ruleUrl(rule.id), { token })).status).toBe(404);
  });

  it.each([
    ["abc", 400],
    ["-1", 400],
    ["1.5", 400],
    ["99999999999", 400],
    ["2147483648", 400],
    ["2147483647", 404],
    ["0", 404],
  ])("answers the id %s with %s", async (id, status) => {
    const response = await call("GET", ruleUrl(id), { token: namespace.owner.tenantToken });
    expect(response.status).toBe(status);
    if (status === 400) expect(response.body.fields).toEqual([{ field: "id", message: expect.any(String) }]);
  });

  it("accepts the id with leading zeros, on get and on the tag operations", async () => {
    const rule = await createRule(namespace, { filter: { tags: ["prod"] } });
    const padded = `000${rule.id}`;
    expect((await getRule(namespace, padded)).body).toEqual(rule);
    const tagged = await call<Rule>("POST", `${ruleUrl(padded)}/tags`, {
      token: namespace.owner.tenantToken,
      body: { tag: "web" },
    });
    expect(tagged.status).toBe(200);
    expect(tagged.body.id).toBe(rule.id);
  });
});

describe("firewall rule tags", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });
  const send = (method: string, rule: Rule, body: unknown) =>
    call<Rule>(method, `${ruleUrl(rule.id)}/tags`, { token: namespace.owner.tenantToken, body });
  const filterOf = async (rule: Rule) => (await getRule(namespace, rule.id)).body.filter;

  it("adds tags up to 3; a duplicate or a 4th is a 409", async () => {
    const rule = await createRule(namespace, { filter: { tags: ["prod"] } });
    const added = await send("POST", rule, { tag: "eu-west" });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({ ...rule, filter: { tags: ["prod", "eu-west"] } });
    expect((await send("POST", rule, { tag: "prod" })).status).toBe(409);
    expect((await send("POST", rule, { tag: "web" })).status).toBe(200);
    expect((await send("POST", rule, { tag: "db-servers" })).status).toBe(409);
    expect(await filterOf(rule)).toEqual({ tags: ["prod", "eu-west", "web"] });
  });

  it("removes the tag named in the body; an absent tag is a 404, the last tag a 409", async () => {
    const rule = await createRule(namespace, { filter: { tags: ["prod", "web"] } });
    const removed = await send("DELETE", rule, { tag: "prod" });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.filter).toEqual({ tags: ["web"] });
    expect((await send("DELETE", rule, { tag: "prod" })).status).toBe(404);
    expect((await send("DELETE", rule, { tag: "web" })).status).toBe(409);
    expect(await filterOf(rule)).toEqual({ tags: ["web"] });
  });

  it("replaces the filter with tags, also a hostname filter; adding to a hostname filter is a 409", async () => {
    const rule = await createRule(namespace, { filter: { hostname: "^db-" } });
    expect((await send("POST", rule, { tag: "prod" })).status).toBe(409);
    expect((await send("DELETE", rule, { tag: "prod" })).status).toBe(404);
    expect(await filterOf(rule)).toEqual({ hostname: "^db-" });
    const replaced = await send("PUT", rule, { tags: ["prod", "databases"] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(await filterOf(rule)).toEqual({ tags: ["prod", "databases"] });
  });
});

describe("firewall rules of another namespace", () => {
  it("answer 404 to every operation, JWT or API key, and stay unchanged", async () => {
    const [victim, outsider] = await Promise.all([seedNamespace(), seedNamespace()]);
    const rule = await createRule(victim, { filter: { tags: ["prod", "web"] } });
    const apiKey = await seedApiKey(outsider, "owner");
    for (const credentials of [{ token: outsider.owner.tenantToken }, { apiKey }]) {
      const responses = await Promise.all([
        call("GET", ruleUrl(rule.id), credentials),
        call("PUT", ruleUrl(rule.id), { ...credentials, body: ruleBody({ action: "allow" }) }),
        call("POST", `${ruleUrl(rule.id)}/tags`, { ...credentials, body: { tag: "stolen" } }),
        call("PUT", `${ruleUrl(rule.id)}/tags`, { ...credentials, body: { tags: ["stolen"] } }),
        call("DELETE", `${ruleUrl(rule.id)}/tags`, { ...credentials, body: { tag: "prod" } }),
        call("DELETE", ruleUrl(rule.id), credentials),
      ]);
      expect(responses.map((response) => response.status)).toEqual([404, 404, 404, 404, 404, 404]);
      const listed = await call<Rule[]>("GET", rulesUrl, credentials);
      expect(listed.body).toEqual([]);
      expect(listed.headers.get("x-total-count")).toBe("0");
    }
    expect((await getRule(victim, rule.id)).body).toEqual(rule);
  });

  it("an operator may read but not change rules", async () => {
    const namespace = await seedNamespace();
    const rule = await createRule(namespace);
    const operator = await seedMember(namespace, "operator");
    expect((await call("GET", ruleUrl(rule.id), { token: operator.tenantToken })).status).toBe(200);
    const refused = await call("PUT", ruleUrl(rule.id), {
      token: operator.tenantToken,
      body: ruleBody({ priority: 0 }),
    });
    expect(refused.status).toBe(403);
    expect((await getRule(namespace, rule.id)).body).toEqual(rule);
  });
});

describe("rule tester (POST /api/firewall/rules/evaluate)", () => {
  const evaluateUrl = `${rulesUrl}/evaluate`;
  let namespace: SeededNamespace;
  let deviceUid: string;
  let denying: Rule;
  beforeAll(async () => {
    namespace = await seedNamespace();
    deviceUid = (await seedDevice(namespace, { hostname: "web-01", status: "accept", tags: ["prod"] })).uid;
    await createRule(namespace, { priority: 1, action: "deny", active: false, source_ip: ".*", username: ".*" });
    denying = await createRule(namespace, {
      priority: 20,
      action: "deny",
      source_ip: "^198\\.51\\.100\\.",
      username: "^root$",
      filter: { tags: ["prod"] },
    });
  });
  const evaluate = (body: unknown, token = namespace.owner.tenantToken) =>
    call<{ action: string; rule?: { id: string; priority: number } }>("POST", evaluateUrl, { token, body });

  it("names the active rule that denies, as the gateway decides; an observer may ask", async () => {
    const observer = await seedMember(namespace, "observer");
    const response = await evaluate(
      { username: "root", source_ip: "198.51.100.7", device_uid: deviceUid },
      observer.tenantToken,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ action: "deny", rule: { id: denying.id, priority: 20 } });
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4 address, as the gateway does", async () => {
    const response = await evaluate({ username: "root", source_ip: "::FFFF:198.51.100.7", device_uid: deviceUid });
    expect(response.body).toEqual({ action: "deny", rule: { id: denying.id, priority: 20 } });
  });

  it("allows when no rule matched, and names none", async () => {
    const response = await evaluate({ username: "admin", source_ip: "198.51.100.7", device_uid: deviceUid });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ action: "allow" });
  });

  it("refuses a bad address or device id with 400 naming the fields", async () => {
    const response = await evaluate({ username: "", source_ip: "10.0.0", device_uid: "nope" });
    expect(response.status).toBe(400);
    expect((response.body as unknown as { fields: { field: string }[] }).fields.map((issue) => issue.field)).toEqual([
      "username",
      "source_ip",
      "device_uid",
    ]);
  });

  it("answers 404 for a device the namespace does not have, another namespace's included", async () => {
    const other = await seedNamespace();
    const foreign = await seedDevice(other, { status: "accept" });
    for (const uid of [foreign.uid, randomUid()]) {
      const response = await evaluate({ username: "root", source_ip: "198.51.100.7", device_uid: uid });
      expect(response.status, uid).toBe(404);
    }
  });
});

describe("community edition", () => {
  let server: RunningServer;
  let token: string;
  beforeAll(async () => {
    server = await startServer({ EDITION: "community", DATABASE_URL: undefined });
    const at = { baseUrl: server.url };
    const username = uniqueName("u");
    const registered = await call("POST", "/api/register", {
      ...at,
      body: { name: "Community User", username, email: `${username}@example.com`, password: "secret-pass" },
    });
    expect(registered.status, registered.text).toBe(200);
    const created = await call("POST", "/api/namespaces", {
      ...at,
      token: registered.body.token,
      body: { name: uniqueName("ns") },
    });
    expect(created.status, created.text).toBe(200);
    const switched = await call("GET", `/api/token/${created.body.tenant_id}`, { ...at, token: registered.body.token });
    token = switched.body.token;
  });
  afterAll(async () => {
    await server?.stop();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  it("answers 404 to every firewall operation, even for the namespace owner", async () => {
    expect(firewallOperations.length).toBe(9);
    expect(firewallOperations.every((operation) => operation.isCloudOnly)).toBe(true);
    const results = await Promise.all(
      firewallOperations.map(async (operation) => {
        const path = operation.path.replace("{id}", "1");
        const body = operation.body ? { ...ruleBody(), tag: "prod", tags: ["prod"] } : undefined;
        const response = await call(operation.method, path, { baseUrl: server.url, token, body });
        return `${operation.id}: ${response.status} ${JSON.stringify(response.body)}`;
      }),
    );
    expect(results).toEqual(
      firewallOperations.map(
        (operation) => `${operation.id}: 404 ${JSON.stringify({ message: "this operation not found" })}`,
      ),
    );
  });

  it("still serves public keys", async () => {
    const response = await call("GET", "/api/sshkeys/public-keys", { baseUrl: server.url, token });
    expect(response.status).toBe(200);
    expect(operations.find((operation) => operation.id === "listPublicKeys")?.isCloudOnly).toBeUndefined();
  });
});
