import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { heartbeatLoop, makeDevices, registerAll } from "@/bench/simulator";
import { agentBody, authDevice } from "@/testing/agents";
import { call } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { seedSession } from "@/testing/seeds/sessions";
import { type RunningServer, startServer } from "@/testing/server";

const getDevice = async (token: string, uid: string) => (await call("GET", `/api/devices/${uid}`, { token })).body;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("agent heartbeats", () => {
  it("refresh last_seen, online, remote_addr and info of the device", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    const first = await getDevice(token, uid);
    expect(first).toMatchObject({ status: "pending", online: true, remote_addr: "127.0.0.1", info: body.info });
    await sleep(20);
    const updated = { ...body, info: { ...body.info, version: "0.2.0", pretty_name: "Debian GNU/Linux 13" } };
    expect((await authDevice(updated)).body.uid).toBe(uid);
    const second = await getDevice(token, uid);
    expect(second.info).toEqual(updated.info);
    expect(Date.parse(second.last_seen)).toBeGreaterThan(Date.parse(first.last_seen));
  });

  it("touch only the listed sessions that belong to the calling device", async () => {
    const namespace = await seedNamespace();
    const elsewhere = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const mine = agentBody(namespace.tenantId);
    const other = agentBody(namespace.tenantId);
    const foreign = agentBody(elsewhere.tenantId);
    const device = (await authDevice(mine)).body;
    await authDevice(other);
    await authDevice(foreign);
    const { session } = await seedSession(namespace, { device });
    const lastSeen = async () =>
      Date.parse((await call("GET", `/api/sessions/${session.uid}`, { token })).body.last_seen);
    const before = await lastSeen();
    await sleep(20);
    // Neither another device of the namespace nor one of another namespace keeps it alive.
    expect((await authDevice({ ...other, sessions: [session.uid] })).status).toBe(200);
    expect((await authDevice({ ...foreign, sessions: [session.uid] })).status).toBe(200);
    expect(await lastSeen()).toBe(before);
    expect((await authDevice({ ...mine, sessions: [session.uid] })).status).toBe(200);
    expect(await lastSeen()).toBeGreaterThan(before);
  });

  it("of a deleted device register it anew as pending, never bring it back as it was", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    expect((await call("PATCH", `/api/devices/${uid}/accept`, { token })).status).toBe(200);
    expect((await call("PUT", `/api/devices/${uid}`, { token, body: { name: "renamed" } })).status).toBe(200);
    expect((await authDevice(body)).body).toMatchObject({ uid, name: "renamed" });
    expect((await call("DELETE", `/api/devices/${uid}`, { token })).status).toBe(200);
    const again = await authDevice(body);
    expect(again.body).toMatchObject({ uid, name: body.hostname.toLowerCase() });
    expect(await getDevice(token, uid)).toMatchObject({ status: "pending", name: body.hostname.toLowerCase() });
  });

  it("of a deleted namespace's device are refused at once", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    expect((await authDevice(body)).status).toBe(200);
    // Steady now: the next one would be answered from memory.
    expect((await authDevice(body)).status).toBe(200);
    const deleted = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
    });
    expect(deleted.status).toBe(200);
    const refused = await authDevice(body);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: expect.stringContaining("namespace") });
  });

  it("keep the status the namespace gave the device", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    for (const [word, status] of [
      ["accept", "accepted"],
      ["reject", "rejected"],
      ["pending", "pending"],
    ]) {
      expect((await call("PATCH", `/api/devices/${uid}/${word}`, { token })).status).toBe(200);
      expect((await authDevice(body)).status).toBe(200);
      expect((await getDevice(token, uid)).status).toBe(status);
    }
  });

  it("take the address from X-Real-IP only when the peer is a trusted proxy", async () => {
    const namespace = await seedNamespace();
    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body, { headers: { "x-real-ip": "198.51.100.7" } })).body;
    expect((await getDevice(namespace.owner.tenantToken, uid)).remote_addr).toBe("127.0.0.1");
  });

  it("over 1 MB are refused with 413, announced or not", async () => {
    const namespace = await seedNamespace();
    const body = { ...agentBody(namespace.tenantId), padding: "x".repeat(1024 * 1024) };
    const announced = await authDevice(body);
    expect(announced.status).toBe(413);
    expect(announced.body).toEqual({ message: expect.any(String) });
    const chunked = await fetch(`${inject("baseUrl")}/api/devices/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([JSON.stringify(body)]).stream(),
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(chunked.status).toBe(413);
  });

  it("come from the device simulator too: registered devices wait as pending and stay online", async () => {
    const namespace = await seedNamespace();
    const devices = makeDevices(5, namespace.tenantId, "simtest");
    await registerAll(inject("baseUrl"), devices, 5);
    const statuses = await heartbeatLoop(inject("baseUrl"), devices, { intervalMs: 200, durationMs: 600 });
    expect([...statuses.keys()]).toEqual([200]);
    const listed = await call("GET", "/api/devices?status=pending&per_page=10", { token: namespace.owner.tenantToken });
    expect(listed.headers.get("x-total-count")).toBe("5");
    expect(listed.body.map((item: { name: string }) => item.name).sort()).toEqual(
      devices.map((device) => device.hostname).sort(),
    );
    expect(listed.body.every((item: { online: boolean }) => item.online)).toBe(true);
  });
});

describe("silent devices (own server, offline after 10 s)", () => {
  let server: RunningServer;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
    server = await startServer({ DATABASE_URL: database?.url, DEVICE_OFFLINE_SECONDS: "10" });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  it("go offline by the timer once they miss their heartbeats, and online again when they call", async () => {
    const { tenantId, owner } = await seedNamespace(undefined, { baseUrl: server.url });
    const token = owner.tenantToken;
    const body = agentBody(tenantId);
    const { uid } = (await authDevice(body, { baseUrl: server.url })).body;
    const online = async () => (await call("GET", `/api/devices/${uid}`, { baseUrl: server.url, token })).body.online;
    expect(await online()).toBe(true);
    let wentOffline = false;
    for (const until = Date.now() + 30_000; Date.now() < until && !wentOffline; await sleep(500)) {
      wentOffline = (await online()) === false;
    }
    expect(wentOffline).toBe(true);
    await authDevice(body, { baseUrl: server.url });
    expect(await online()).toBe(true);
  }, 60_000);
});
