import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent } from "@/testing/agents";
import { type ApiResponse, call, filterOf, property, uniqueName } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { type SeededDevice, seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const owner = (namespace: SeededNamespace) => ({ token: namespace.owner.tenantToken });
const getDevice = (namespace: SeededNamespace, uid: string) => call("GET", `/api/devices/${uid}`, owner(namespace));
const listDevices = (namespace: SeededNamespace, query = "") =>
  call("GET", `/api/devices${query ? `?${query}` : ""}`, owner(namespace));
const namesOf = (response: ApiResponse) => (response.body as { name: string }[]).map((device) => device.name);
const totalOf = (response: ApiResponse) => Number(response.headers.get("x-total-count"));

describe("get device", () => {
  let namespace: SeededNamespace;
  let other: SeededNamespace;
  let device: SeededDevice;

  beforeAll(async () => {
    [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    device = await seedDevice(namespace);
  });

  it("answers the device object as the agent registered it", async () => {
    const response = await getDevice(namespace, device.uid);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      uid: device.uid,
      name: device.hostname,
      identity: { mac: device.mac },
      info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "0.1.0", arch: "x86_64", platform: "native" },
      public_key: expect.stringContaining("-----BEGIN PUBLIC KEY-----"),
      tenant_id: namespace.tenantId,
      last_seen: expect.stringMatching(isoPattern),
      online: true,
      namespace: namespace.name,
      status: "pending",
      status_update_at: expect.stringMatching(isoPattern),
      created_at: expect.stringMatching(isoPattern),
      remote_addr: "127.0.0.1",
      position: null,
      tags: [],
      public_url: false,
      acceptable: true,
    });
  });

  it("answers an observer's API key too", async () => {
    const response = await call("GET", `/api/devices/${device.uid}`, {
      apiKey: await seedApiKey(namespace, "observer"),
    });
    expect(response.status).toBe(200);
    expect(response.body.uid).toBe(device.uid);
  });

  it("answers 404 for another tenant's device and for an unknown uid", async () => {
    for (const uid of [device.uid, "f".repeat(64)]) {
      const response = await getDevice(other, uid);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: "device not found" });
    }
  });

  it.each([
    ["not hex", "not-a-device"],
    ["upper-case hex", "A".repeat(64)],
    ["63 characters", "a".repeat(63)],
    ["65 characters", "a".repeat(65)],
  ])("answers 400 naming uid for a uid that is %s", async (_label, uid) => {
    const response = await getDevice(namespace, uid);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: expect.any(String),
      fields: [{ field: "uid", message: expect.any(String) }],
    });
  });
});

describe("list devices", () => {
  let namespace: SeededNamespace;
  // One name prefix per run, so names sort by their suffix.
  const prefix = uniqueName("d");
  const named = (suffix: string) => `${prefix}-${suffix}`;
  const devices: Record<string, SeededDevice> = {};

  beforeAll(async () => {
    namespace = await seedNamespace();
    // Registered one after the other: last_seen and created_at grow in this order.
    const plan = [
      ["alpha", { status: "accept", tags: ["prod", "emea"] }],
      ["bravo", { tags: ["prod"] }],
      ["charlie", { status: "reject", isOnline: false }],
      ["delta", { status: "accept", tags: ["emea"], isOnline: false }],
      ["echo", { status: "unused" }],
    ] as const;
    for (const [suffix, options] of plan) {
      devices[suffix] = await seedDevice(namespace, { hostname: named(suffix), ...options });
    }
    // A device of another namespace, with a matching name and the same tags, is never listed.
    await seedDevice(await seedNamespace(), { hostname: named("alpha-other"), tags: ["prod", "emea"] });
  });

  it("lists the namespace's devices, newest heartbeat first, with X-Total-Count", async () => {
    const response = await listDevices(namespace);
    expect(response.status).toBe(200);
    expect(totalOf(response)).toBe(5);
    expect(namesOf(response)).toEqual(["echo", "delta", "charlie", "bravo", "alpha"].map(named));
    const alpha = response.body.find((device: { uid: string }) => device.uid === devices.alpha?.uid);
    expect(alpha).toMatchObject({
      status: "accepted",
      tags: ["prod", "emea"],
      online: true,
      namespace: namespace.name,
    });
  });

  it.each([
    ["sort_by=name&order_by=asc", ["alpha", "bravo", "charlie", "delta", "echo"]],
    ["sort_by=name&order_by=desc", ["echo", "delta", "charlie", "bravo", "alpha"]],
    ["sort_by=name", ["echo", "delta", "charlie", "bravo", "alpha"]],
    ["order_by=asc", ["alpha", "bravo", "charlie", "delta", "echo"]],
    ["sort_by=created_at&order_by=asc", ["alpha", "bravo", "charlie", "delta", "echo"]],
    // Ties (same status, same online flag) are broken by uid, in the same direction.
    ["sort_by=status&order_by=asc", null],
    ["sort_by=online&order_by=asc", null],
  ])("sorts with %s", async (query, suffixes) => {
    const response = await listDevices(namespace, query);
    expect(response.status).toBe(200);
    if (suffixes) {
      expect(namesOf(response)).toEqual(suffixes.map(named));
      return;
    }
    const [field] = /sort_by=(\w+)/.exec(query)?.slice(1) ?? [];
    const keys = (response.body as Record<string, unknown>[]).map((device) => `${device[field ?? ""]}|${device.uid}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys.map((key) => key.split("|")[0])).size).toBeGreaterThan(1);
  });

  it("sorts by uid", async () => {
    const response = await listDevices(namespace, "sort_by=uid&order_by=asc");
    const uids = (response.body as { uid: string }[]).map((device) => device.uid);
    expect(uids).toEqual(
      Object.values(devices)
        .map((device) => device.uid)
        .sort(),
    );
  });

  it("sorts by status_update_at: the latest status change first", async () => {
    const response = await listDevices(namespace, "sort_by=status_update_at&order_by=desc");
    const times = (response.body as { status_update_at: string }[]).map((device) => device.status_update_at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("pages through all devices without overlap, with the total on every page", async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => listDevices(namespace, `page=${page}&per_page=2`)));
    expect(pages.map((page) => page.body.length)).toEqual([2, 2, 1, 0]);
    expect(pages.map(totalOf)).toEqual([5, 5, 5, 5]);
    const all = pages.flatMap(namesOf);
    expect(all).toEqual(namesOf(await listDevices(namespace)));
  });

  it("answers the largest safe page with an empty list", async () => {
    const response = await listDevices(namespace, "page=9007199254740991&per_page=100");
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(totalOf(response)).toBe(5);
  });

  it.each([
    ["accepted", ["delta", "alpha"]],
    ["pending", ["bravo"]],
    ["rejected", ["charlie"]],
    ["unused", ["echo"]],
    ["removed", []],
  ])("lists only %s devices with status=", async (status, suffixes) => {
    const response = await listDevices(namespace, `status=${status}`);
    expect(response.status).toBe(200);
    expect(namesOf(response)).toEqual(suffixes.map(named));
    expect(totalOf(response)).toBe(suffixes.length);
  });

  const and = { type: "operator", params: { name: "and" } };
  const or = { type: "operator", params: { name: "or" } };
  const filters: [string, () => unknown[], string[]][] = [
    ["name contains, any case", () => [property("name", "contains", "ALPH")], ["alpha"]],
    ["name eq", () => [property("name", "eq", named("bravo"))], ["bravo"]],
    ["name ne", () => [property("name", "ne", named("bravo"))], ["echo", "delta", "charlie", "alpha"]],
    ["uid eq", () => [property("uid", "eq", devices.charlie?.uid)], ["charlie"]],
    ["online bool false", () => [property("online", "bool", false)], ["delta", "charlie"]],
    ["online eq true", () => [property("online", "eq", true)], ["echo", "bravo", "alpha"]],
    ["tags contains", () => [property("tags", "contains", "prod")], ["bravo", "alpha"]],
    ["tags eq", () => [property("tags", "eq", "emea")], ["delta", "alpha"]],
    // What the ShellHub UI's tag selector sends: the devices with every selected tag.
    ["tags contains a list: all of it", () => [property("tags", "contains", ["prod", "emea"])], ["alpha"]],
    ["tags contains a list of one", () => [property("tags", "contains", ["emea"])], ["delta", "alpha"]],
    ["tags contains a list with an unused tag", () => [property("tags", "contains", ["prod", "nowhere"])], []],
    ["status eq", () => [property("status", "eq", "accepted")], ["delta", "alpha"]],
    ["status ne", () => [property("status", "ne", "accepted")], ["echo", "charlie", "bravo"]],
    [
      "info.pretty_name contains",
      () => [property("info.pretty_name", "contains", "deb")],
      ["echo", "delta", "charlie", "bravo", "alpha"],
    ],
    ["info.arch eq", () => [property("info.arch", "eq", "arm64")], []],
    [
      "info.id, info.version and info.platform",
      () => [
        property("info.id", "eq", "debian"),
        property("info.version", "eq", "0.1.0"),
        property("info.platform", "contains", "nat"),
        and,
      ],
      ["echo", "delta", "charlie", "bravo", "alpha"],
    ],
    [
      "created_at gt a past date",
      () => [property("created_at", "gt", "2000-01-01T00:00:00Z")],
      ["echo", "delta", "charlie", "bravo", "alpha"],
    ],
    ["created_at lt a past date", () => [property("created_at", "lt", "2000-01-01T00:00:00Z")], []],
    ["last_seen gt a future date", () => [property("last_seen", "gt", "2999-01-01T00:00:00Z")], []],
    [
      "or of two names",
      () => [property("name", "contains", "alpha"), property("name", "contains", "echo"), or],
      ["echo", "alpha"],
    ],
    [
      "and of tag and status",
      () => [property("tags", "contains", "prod"), property("status", "eq", "accepted"), and],
      ["alpha"],
    ],
    [
      "conditions without an operator (and)",
      () => [property("tags", "contains", "emea"), property("online", "bool", true)],
      ["alpha"],
    ],
    ["a value written as SQL", () => [property("name", "eq", "x' or '1'='1")], []],
    ["a LIKE wildcard as a value", () => [property("name", "contains", "%")], []],
    ["an underscore as a value", () => [property("name", "contains", "_")], []],
  ];

  it.each(filters)("filters with %s", async (_label, items, suffixes) => {
    const response = await listDevices(namespace, `filter=${filterOf(items())}`);
    expect(response.status, response.text).toBe(200);
    expect(namesOf(response)).toEqual(suffixes.map(named));
    expect(totalOf(response)).toBe(suffixes.length);
  });

  it("combines a filter with status, sorting and paging; the total counts all matches", async () => {
    const filter = filterOf([property("name", "contains", prefix)]);
    const response = await listDevices(
      namespace,
      `filter=${filter}&status=accepted&sort_by=name&order_by=asc&per_page=1`,
    );
    expect(response.status).toBe(200);
    expect(namesOf(response)).toEqual([named("alpha")]);
    expect(totalOf(response)).toBe(2);
  });

  it("takes empty values (filter=, status=, sort_by=, ...) as no filter and the defaults", async () => {
    const response = await listDevices(namespace, "filter=&status=&sort_by=&order_by=&page=&per_page=");
    expect(response.status, response.text).toBe(200);
    expect(namesOf(response)).toEqual(namesOf(await listDevices(namespace)));
    expect(totalOf(response)).toBe(5);
  });

  it("orders by the latest heartbeat by default: a device that reports again comes first", async () => {
    const fresh = await seedNamespace();
    const first = await seedDevice(fresh, { hostname: named("first") });
    await seedDevice(fresh, { hostname: named("second") });
    expect(namesOf(await listDevices(fresh))).toEqual([named("second"), named("first")]);
    // The agent calls in again (a heartbeat).
    await registerAgent(fresh.tenantId, {
      hostname: first.hostname,
      identity: { mac: first.mac },
      public_key: first.publicKey,
    });
    expect(namesOf(await listDevices(fresh))).toEqual([named("first"), named("second")]);
    // Registration order is unchanged.
    expect(namesOf(await listDevices(fresh, "sort_by=created_at"))).toEqual([named("second"), named("first")]);
  });
});

describe("update device", () => {
  let namespace: SeededNamespace;
  let other: SeededNamespace;

  beforeAll(async () => {
    [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
  });

  const put = (ns: SeededNamespace, uid: string, body: unknown) =>
    call("PUT", `/api/devices/${uid}`, { ...owner(ns), body });

  it("renames a device; the new name is what get and list show", async () => {
    const device = await seedDevice(namespace);
    const name = uniqueName("renamed");
    const response = await put(namespace, device.uid, { name });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ uid: device.uid, name, public_url: false });
    expect((await getDevice(namespace, device.uid)).body.name).toBe(name);
    const listed = await listDevices(namespace, `filter=${filterOf([property("name", "eq", name)])}`);
    expect(namesOf(listed)).toEqual([name]);
  });

  it("sets and clears public_url, leaving the name alone", async () => {
    const device = await seedDevice(namespace);
    const on = await put(namespace, device.uid, { public_url: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ name: device.name, public_url: true });
    expect((await getDevice(namespace, device.uid)).body.public_url).toBe(true);
    const off = await put(namespace, device.uid, { public_url: false });
    expect(off.body.public_url).toBe(false);
    expect((await getDevice(namespace, device.uid)).body.public_url).toBe(false);
  });

  it("answers an empty body with the device unchanged", async () => {
    const device = await seedDevice(namespace);
    const before = await getDevice(namespace, device.uid);
    const response = await put(namespace, device.uid, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(before.body);
  });

  it.each([
    ["1 character", () => "a"],
    ["63 characters", () => `${uniqueName("n")}${"x".repeat(52)}`],
    ["inner hyphens and digits", () => `${uniqueName("n")}-01--b`],
  ])("takes a name of %s", async (_label, name) => {
    const device = await seedDevice(namespace);
    const value = name();
    const response = await put(namespace, device.uid, { name: value });
    expect(response.status, response.text).toBe(200);
    expect(response.body.name).toBe(value);
  });

  it("refuses a name another device of the namespace has (409), changing nothing", async () => {
    const [first, second] = [await seedDevice(namespace), await seedDevice(namespace)];
    const response = await put(namespace, second.uid, { name: first.name, public_url: true });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await getDevice(namespace, second.uid)).body).toMatchObject({ name: second.name, public_url: false });
  });

  it("takes a name that a device of another namespace has", async () => {
    const theirs = await seedDevice(other);
    const mine = await seedDevice(namespace);
    const response = await put(namespace, mine.uid, { name: theirs.name });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(theirs.name);
  });

  it("answers 404 for another tenant's device and leaves it alone", async () => {
    const theirs = await seedDevice(other);
    const response = await put(namespace, theirs.uid, { name: uniqueName("stolen"), public_url: true });
    expect(response.status).toBe(404);
    expect((await getDevice(other, theirs.uid)).body).toMatchObject({ name: theirs.name, public_url: false });
  });
});

describe("device status", () => {
  let namespace: SeededNamespace;
  let other: SeededNamespace;

  beforeAll(async () => {
    [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
  });

  const patch = (ns: SeededNamespace, uid: string, word: string) =>
    call("PATCH", `/api/devices/${uid}/${word}`, owner(ns));

  it("accepts a pending device and moves status_update_at", async () => {
    const device = await seedDevice(namespace);
    const before = (await getDevice(namespace, device.uid)).body;
    expect(before).toMatchObject({ status: "pending", acceptable: true });
    const response = await patch(namespace, device.uid, "accept");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ uid: device.uid, status: "accepted", acceptable: false });
    expect(Date.parse(response.body.status_update_at)).toBeGreaterThan(Date.parse(before.status_update_at));
    expect((await getDevice(namespace, device.uid)).body).toEqual(response.body);
  });

  it("goes through every status word in turn, each moving status_update_at", async () => {
    const device = await seedDevice(namespace);
    let last = (await getDevice(namespace, device.uid)).body.status_update_at;
    for (const [word, status] of [
      ["reject", "rejected"],
      ["pending", "pending"],
      ["unused", "unused"],
      ["accept", "accepted"],
      ["reject", "rejected"],
    ]) {
      const response = await patch(namespace, device.uid, word as string);
      expect(response.status, `${word}: ${response.text}`).toBe(200);
      expect(response.body.status).toBe(status);
      expect(Date.parse(response.body.status_update_at)).toBeGreaterThan(Date.parse(last));
      last = response.body.status_update_at;
      expect((await getDevice(namespace, device.uid)).body.status).toBe(status);
    }
  });

  it.each(["removed", "accepted", "rejected", "ACCEPT", "delete", "online"])(
    "refuses the status word %s (400 naming status), changing nothing",
    async (word) => {
      const device = await seedDevice(namespace);
      const before = (await getDevice(namespace, device.uid)).body;
      const response = await patch(namespace, device.uid, word);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: expect.any(String),
        fields: [{ field: "status", message: expect.any(String) }],
      });
      expect((await getDevice(namespace, device.uid)).body).toEqual(before);
    },
  );

  it("answers 400 naming uid for a bad uid", async () => {
    for (const word of ["accept", "reject"]) {
      const response = await patch(namespace, "not-a-uid", word);
      expect(response.status).toBe(400);
      expect(response.body.fields).toEqual([{ field: "uid", message: expect.any(String) }]);
    }
  });

  it("answers 404 for another tenant's device, whatever the word, and changes nothing", async () => {
    const theirs = await seedDevice(other);
    const before = (await getDevice(other, theirs.uid)).body;
    for (const word of ["accept", "reject", "pending", "unused"]) {
      const response = await patch(namespace, theirs.uid, word);
      expect(response.status, word).toBe(404);
      expect(response.body).toEqual({ message: "device not found" });
    }
    expect((await getDevice(other, theirs.uid)).body).toEqual(before);
  });
});

describe("delete device", () => {
  it("removes the device: get answers 404, the list leaves it out, a second delete answers 404", async () => {
    const namespace = await seedNamespace();
    const [gone, kept] = [await seedDevice(namespace), await seedDevice(namespace)];
    const response = await call("DELETE", `/api/devices/${gone.uid}`, owner(namespace));
    expect(response.status).toBe(200);
    expect((await getDevice(namespace, gone.uid)).status).toBe(404);
    const listed = await listDevices(namespace);
    expect(namesOf(listed)).toEqual([kept.name]);
    expect(totalOf(listed)).toBe(1);
    expect((await call("DELETE", `/api/devices/${gone.uid}`, owner(namespace))).status).toBe(404);
  });

  it("answers 404 for another tenant's device, which stays", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    const theirs = await seedDevice(other);
    const response = await call("DELETE", `/api/devices/${theirs.uid}`, owner(namespace));
    expect(response.status).toBe(404);
    expect((await getDevice(other, theirs.uid)).status).toBe(200);
  });
});

describe("max_devices", () => {
  type Limited = { server: RunningServer; drop?: () => Promise<void> };
  let cloud: Limited;
  let community: Limited;

  async function start(env: Record<string, string>): Promise<Limited> {
    const adminUrl = process.env.TEST_DATABASE_URL;
    const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
    const server = await startServer({ ...env, DATABASE_URL: database?.url });
    return { server, drop: database?.drop };
  }

  beforeAll(async () => {
    [cloud, community] = await Promise.all([
      start({ MAX_DEVICES: "2", EDITION: "cloud" }),
      start({ MAX_DEVICES: "1", EDITION: "community" }),
    ]);
  });

  afterAll(async () => {
    for (const limited of [cloud, community]) {
      if (!limited) continue;
      await limited.server.stop();
      await limited.drop?.();
      rmSync(limited.server.dataDir, { recursive: true, force: true });
    }
  });

  const on = (limited: Limited, namespace: SeededNamespace) => ({
    baseUrl: limited.server.url,
    token: namespace.owner.tenantToken,
  });

  it("cloud: the accept past max_devices answers 402 and changes nothing; freeing a slot lets it in", async () => {
    const baseUrl = cloud.server.url;
    const namespace = await seedNamespace(undefined, { baseUrl });
    const [first, second, third] = [
      await seedDevice(namespace, { baseUrl }),
      await seedDevice(namespace, { baseUrl }),
      await seedDevice(namespace, { baseUrl }),
    ];
    for (const device of [first, second]) {
      expect((await call("PATCH", `/api/devices/${device?.uid}/accept`, on(cloud, namespace))).status).toBe(200);
    }
    const before = await call("GET", `/api/devices/${third?.uid}`, on(cloud, namespace));
    expect(before.body).toMatchObject({ status: "pending", acceptable: false });

    const refused = await call("PATCH", `/api/devices/${third?.uid}/accept`, on(cloud, namespace));
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ message: expect.stringContaining("2"), code: "device_limit_reached" });
    expect((await call("GET", `/api/devices/${third?.uid}`, on(cloud, namespace))).body).toEqual(before.body);
    const read = await call("GET", `/api/namespaces/${namespace.tenantId}`, on(cloud, namespace));
    expect(read.body).toMatchObject({ max_devices: 2, device_count: 2 });

    // Accepting an accepted device again does not count twice.
    expect((await call("PATCH", `/api/devices/${first?.uid}/accept`, on(cloud, namespace))).status).toBe(200);

    expect((await call("PATCH", `/api/devices/${first?.uid}/reject`, on(cloud, namespace))).status).toBe(200);
    const accepted = await call("PATCH", `/api/devices/${third?.uid}/accept`, on(cloud, namespace));
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe("accepted");
  });

  it("cloud: of 6 concurrent accepts at max_devices 2, exactly 2 pass", async () => {
    const baseUrl = cloud.server.url;
    const namespace = await seedNamespace(undefined, { baseUrl });
    const devices = await Promise.all(
      Array.from({ length: 6 }, () => seedDevice(namespace, { baseUrl, hostname: uniqueName("race") })),
    );
    const responses = await Promise.all(
      devices.map((device) => call("PATCH", `/api/devices/${device.uid}/accept`, on(cloud, namespace))),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 402, 402, 402, 402]);
    const listed = await call("GET", "/api/devices?status=accepted", on(cloud, namespace));
    expect(listed.headers.get("x-total-count")).toBe("2");
  });

  it("community: the accept past max_devices answers 403 and changes nothing", async () => {
    const baseUrl = community.server.url;
    const namespace = await seedNamespace(undefined, { baseUrl });
    const first = await seedDevice(namespace, { baseUrl, status: "accept" });
    const second = await seedDevice(namespace, { baseUrl });
    const before = await call("GET", `/api/devices/${second.uid}`, on(community, namespace));
    const refused = await call("PATCH", `/api/devices/${second.uid}/accept`, on(community, namespace));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: expect.any(String) });
    expect((await call("GET", `/api/devices/${second.uid}`, on(community, namespace))).body).toEqual(before.body);
    expect((await call("GET", `/api/devices/${first.uid}`, on(community, namespace))).body.status).toBe("accepted");
  });
});
