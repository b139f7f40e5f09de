import { generateKeyPairSync } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { deviceUidOf } from "@/lib/services/agent";
import { agentBody, authDevice, newDeviceKey, signedBody } from "@/testing/agents";
import { call } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { type SeededNamespace, seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";

const internalSecret = () => readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();

describe("POST /api/devices/auth", () => {
  it("registers a new device as pending, named after its hostname in lower case", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId, { hostname: "Lab-Router-7" });
    const response = await authDevice(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      uid: deviceUidOf(body),
      token: expect.any(String),
      name: "lab-router-7",
      namespace: namespace.name,
    });
    expect(response.body.uid).toMatch(/^[0-9a-f]{64}$/);
  });

  it("gives the same agent the same uid and name on every call, also through /api/auth/device", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    const first = await authDevice(body);
    const again = await authDevice(body);
    const alias = await call("POST", "/api/auth/device", { body: signedBody(body) });
    expect(again.body.uid).toBe(first.body.uid);
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ uid: first.body.uid, name: first.body.name, namespace: namespace.name });
  });

  it("names a device without a hostname after its MAC address with hyphens", async () => {
    const namespace = await seedNamespace();
    const response = await authDevice(
      agentBody(namespace.tenantId, { hostname: "", identity: { mac: "02:AB:cd:00:11:22" } }),
    );
    expect(response.status).toBe(200);
    expect(response.body.name).toBe("02-ab-cd-00-11-22");
  });

  it("gives a second device with the same hostname a suffixed name", async () => {
    const namespace = await seedNamespace();
    const first = await authDevice(agentBody(namespace.tenantId, { hostname: "twin" }));
    const second = await authDevice(agentBody(namespace.tenantId, { hostname: "twin" }));
    const third = await authDevice(agentBody(namespace.tenantId, { hostname: "TWIN" }));
    expect([first.body.name, second.body.name, third.body.name]).toEqual(["twin", "twin-2", "twin-3"]);
    expect(new Set([first.body.uid, second.body.uid, third.body.uid]).size).toBe(3);
  });

  it("refuses an unknown namespace with 404", async () => {
    const response = await authDevice(agentBody("00000000-0000-4000-8000-000000000000"));
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: "namespace not found" });
  });

  it.each([
    ["a hostname with an underscore", { hostname: "bad_name" }, "hostname"],
    ["a hostname ending in a hyphen", { hostname: "bad-" }, "hostname"],
    ["neither hostname nor MAC", { hostname: "", identity: { mac: "" } }, "hostname"],
    ["a malformed MAC", { identity: { mac: "02:00:00:00:00" } }, "identity.mac"],
    ["a public key that is not PEM", { public_key: "ssh-rsa AAAA" }, "public_key"],
    ["a tenant id that is not a uuid", { tenant_id: "tenant" }, "tenant_id"],
    ["info without its fields", { info: {} }, "info.id"],
    ["sessions that are not uids", { sessions: ["abc"] }, "sessions.0"],
  ])("refuses %s with 400 naming the field", async (_label, override, field) => {
    const namespace = await seedNamespace();
    const response = await authDevice({ ...agentBody(namespace.tenantId), ...override });
    expect(response.status).toBe(400);
    expect(response.body.fields.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  it("refuses a PEM block that is not a key when it would register the device", async () => {
    const namespace = await seedNamespace();
    const garbage = "-----BEGIN PUBLIC KEY-----\nAAAAAAAA\n-----END PUBLIC KEY-----\n";
    const response = await authDevice(agentBody(namespace.tenantId, { public_key: garbage }));
    expect(response.status).toBe(400);
    expect(response.body.fields).toEqual([{ field: "public_key", message: expect.any(String) }]);
  });

  it("refuses an X-Real-IP header that is not an IPv4 address", async () => {
    const namespace = await seedNamespace();
    const response = await authDevice(agentBody(namespace.tenantId), { headers: { "x-real-ip": "not-an-ip" } });
    expect(response.status).toBe(400);
  });
});

describe("device proof of possession", () => {
  const ownerOf = (namespace: SeededNamespace) => ({ token: namespace.owner.tenantToken });
  const accept = async (namespace: SeededNamespace, uid: string) =>
    expect((await call("PATCH", `/api/devices/${uid}/accept`, ownerOf(namespace))).status).toBe(200);
  const device = async (namespace: SeededNamespace, uid: string) =>
    (await call("GET", `/api/devices/${uid}`, ownerOf(namespace))).body;
  const deviceCount = async (namespace: SeededNamespace) =>
    Number((await call("GET", "/api/devices?per_page=1", ownerOf(namespace))).headers.get("x-total-count"));
  const mustSign = { message: expect.stringMatching(/must sign its call with the device key/) };

  it("lets an unsigned agent register and call in while pending, and nothing more once accepted", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    const first = await authDevice(body, { unsigned: true });
    expect(first.status).toBe(200);
    expect((await authDevice(body, { unsigned: true })).status).toBe(200);
    await accept(namespace, first.body.uid);
    const lastSeen = (await device(namespace, first.body.uid)).last_seen;
    const refused = await authDevice({ ...body, info: { ...body.info, version: "9.9.9" } }, { unsigned: true });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(mustSign);
    expect(await device(namespace, first.body.uid)).toMatchObject({ last_seen: lastSeen, info: body.info });
    // Signed, the same agent is the accepted device.
    const signed = await authDevice(body);
    expect(signed.body).toMatchObject({ uid: first.body.uid, name: first.body.name });
  });

  it("refuses one who read the device (an observer's API key) a token for it", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    await accept(namespace, uid);
    const observer = await seedApiKey(namespace, "observer");
    const seen = (await call("GET", `/api/devices/${uid}`, { apiKey: observer })).body;
    const copied = {
      info: seen.info,
      sessions: [],
      hostname: body.hostname,
      identity: seen.identity,
      public_key: seen.public_key,
      tenant_id: seen.tenant_id,
    };
    expect(await authDevice(copied, { unsigned: true })).toMatchObject({ status: 401, body: mustSign });
    const otherKey = generateKeyPairSync("ed25519").privateKey;
    const forged = await authDevice(signedBody(copied, { privateKey: otherKey }));
    expect(forged).toMatchObject({
      status: 401,
      body: { message: "the proof's signature does not verify with the device's public key" },
    });
  });

  it("refuses a proof too old, too far ahead, or signed for another identity, and writes nothing", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    const before = await device(namespace, uid);
    const now = Math.floor(Date.now() / 1000);
    const old = await authDevice(signedBody(body, { timestamp: now - 601 }));
    expect(old.status).toBe(401);
    expect(old.body.message).toMatch(/^the proof's timestamp is 60\d s old: sign again with the server's time/);
    const ahead = await authDevice(signedBody(body, { timestamp: now + 120 }));
    expect(ahead.body.message).toMatch(/^the proof's timestamp is 1\d\d s ahead/);
    const moved = { ...signedBody(body), hostname: "elsewhere" };
    expect((await authDevice(moved)).status).toBe(401);
    expect(await device(namespace, uid)).toEqual(before);
    expect(await deviceCount(namespace)).toBe(1);
    // Within the window, an older proof still holds (agents sign every five minutes).
    expect((await authDevice(signedBody(body, { timestamp: now - 590 }))).status).toBe(200);
  });

  it("keeps refusing unsigned calls for a device whose agent has signed, even while pending", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    expect((await authDevice(body)).status).toBe(200);
    expect(await authDevice(body, { unsigned: true })).toMatchObject({ status: 401, body: mustSign });
  });

  it("lets unsigned agents act for accepted devices once the namespace allows it, never for signing ones", async () => {
    const namespace = await seedNamespace();
    const unsignedBody = agentBody(namespace.tenantId);
    const signingBody = agentBody(namespace.tenantId);
    const unsigned = (await authDevice(unsignedBody, { unsigned: true })).body;
    const signing = (await authDevice(signingBody)).body;
    await accept(namespace, unsigned.uid);
    await accept(namespace, signing.uid);
    expect((await authDevice(unsignedBody, { unsigned: true })).status).toBe(401);
    const allow = await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      ...ownerOf(namespace),
      body: { settings: { allow_unsigned_agents: true } },
    });
    expect(allow.body.settings).toMatchObject({ allow_unsigned_agents: true });
    expect((await authDevice(unsignedBody, { unsigned: true })).body).toMatchObject({ uid: unsigned.uid });
    expect((await authDevice(signingBody, { unsigned: true })).status).toBe(401);
  });

  it("knows a proven key as its device when the hostname and MAC change: same uid and name, new identity", async () => {
    const namespace = await seedNamespace();
    const publicKey = newDeviceKey();
    const before = agentBody(namespace.tenantId, { public_key: publicKey });
    const registered = (await authDevice(before)).body;
    await accept(namespace, registered.uid);
    const reimaged = agentBody(namespace.tenantId, {
      public_key: publicKey,
      info: { ...before.info, version: "0.2.0" },
    });
    // Without the proof, the key gets nothing: no token and no second device beside the first.
    expect(await authDevice(reimaged, { unsigned: true })).toMatchObject({ status: 401, body: mustSign });
    for (let call = 0; call < 2; call++) {
      const answer = await authDevice(reimaged);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ uid: registered.uid, name: registered.name });
    }
    expect(await deviceCount(namespace)).toBe(1);
    expect(await device(namespace, registered.uid)).toMatchObject({
      status: "accepted",
      identity: { mac: reimaged.identity.mac },
      info: { version: "0.2.0" },
    });
  });
});

describe("POST /internal/devices/{uid}/offline", () => {
  it("takes the device's own token or the internal secret, nothing else", async () => {
    const namespace = await seedNamespace();
    const device = (await authDevice(agentBody(namespace.tenantId))).body;
    const other = (await authDevice(agentBody(namespace.tenantId))).body;
    const path = `/internal/devices/${device.uid}/offline`;
    expect((await call("POST", path)).status).toBe(401);
    expect((await call("POST", path, { token: "not-a-token" })).status).toBe(401);
    expect((await call("POST", path, { token: namespace.owner.tenantToken })).status).toBe(401);
    expect((await call("POST", path, { token: other.token })).status).toBe(403);
    expect((await call("POST", path, { token: device.token })).status).toBe(200);
    expect((await call("POST", path, { headers: { "x-internal-secret": internalSecret() } })).status).toBe(200);
    const unknown = `/internal/devices/${"0".repeat(64)}/offline`;
    expect((await call("POST", unknown, { headers: { "x-internal-secret": internalSecret() } })).status).toBe(404);
    expect((await call("POST", "/internal/devices/xyz/offline", { token: device.token })).status).toBe(400);
  });
});

describe("device registration limits and addresses (own server)", () => {
  let server: RunningServer;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
    server = await startServer({
      DATABASE_URL: database?.url,
      DEVICE_REGISTRATIONS_PER_MINUTE: "3",
      TRUSTED_PROXIES: "127.0.0.1",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  it("limits new devices per source and namespace, never heartbeats of known ones", async () => {
    const { tenantId: namespace } = await seedNamespace(undefined, { baseUrl: server.url });
    const source = { "x-real-ip": "198.51.100.7" };
    const known = agentBody(namespace);
    const answers = [];
    for (let index = 0; index < 3; index++) {
      answers.push(
        (await authDevice(index === 0 ? known : agentBody(namespace), { baseUrl: server.url, headers: source })).status,
      );
    }
    expect(answers).toEqual([200, 200, 200]);
    const refused = await authDevice(agentBody(namespace), { baseUrl: server.url, headers: source });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A known device keeps calling in; another source may still register.
    expect((await authDevice(known, { baseUrl: server.url, headers: source })).status).toBe(200);
    expect(
      (await authDevice(agentBody(namespace), { baseUrl: server.url, headers: { "x-real-ip": "198.51.100.8" } }))
        .status,
    ).toBe(200);
  });
});
