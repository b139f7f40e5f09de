import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { deviceUidOf } from "@/lib/services/agent";
import { agentBody, authDevice, devicePublicKey } from "@/testing/agents";
import { call } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { seedNamespace } from "@/testing/seeds/namespaces";
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
    const alias = await call("POST", "/api/auth/device", { body });
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
    const known = agentBody(namespace, { public_key: devicePublicKey });
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
