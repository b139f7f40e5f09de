import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { agentBody, authDevice } from "@/testing/agents";
import { call, uniqueName } from "@/testing/client";
import { type EventStream, openEventStream, type ReceivedEvent } from "@/testing/events";
import { startAgentInProcess } from "@/testing/in-process-agents";
import { seedDevice } from "@/testing/seeds/devices";
import { seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { seedSession } from "@/testing/seeds/sessions";
import { type RunningServer, startServer } from "@/testing/server";
import { waitFor } from "@/testing/wait";

/**
 * `GET /api/events` over real HTTP, read as a browser reads it (a streaming body): the events of
 * the caller's namespace as they happen, replay after `Last-Event-ID`, nothing of another
 * namespace. Device and tunnel events with real agents are in e2e/ssh/live-status.test.ts.
 */

const streams: EventStream[] = [];
async function eventsOf(options: Parameters<typeof openEventStream>[0]) {
  const stream = await openEventStream(options);
  streams.push(stream);
  return stream;
}

afterAll(() => {
  for (const stream of streams) stream.close();
});

const about = (uid: string, type: string) => (event: ReceivedEvent) => event.data.uid === uid && event.event === type;

describe("GET /api/events", () => {
  it("refuses a request without credentials (401, JSON) and opens a stream with a JWT or an API key", async () => {
    const refused = await openEventStream({});
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toContain("application/json");
    const namespace = await seedNamespace();
    const withToken = await eventsOf({ token: namespace.owner.tenantToken });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(withToken.headers.get("cache-control")).toContain("no-transform");
    const withKey = await eventsOf({ apiKey: await seedApiKey(namespace, "observer") });
    expect(withKey.status).toBe(200);
  });

  it("sends a device's registration, status, changes and removal, and the stats after them", async () => {
    const namespace = await seedNamespace();
    const owner = { token: namespace.owner.tenantToken };
    const stream = await eventsOf(owner);

    const body = agentBody(namespace.tenantId);
    const { uid } = (await authDevice(body)).body;
    const registered = await stream.next(about(uid, "device.registered"));
    expect(registered.data).toMatchObject({ type: "device.registered", uid });
    expect(registered.data.patch).toMatchObject({ uid, name: body.hostname, status: "pending", online: true });
    expect(Number(registered.id)).toBeGreaterThan(0);

    await call("PATCH", `/api/devices/${uid}/accept`, owner);
    const accepted = await stream.next(about(uid, "device.status"));
    expect(accepted.data.patch).toMatchObject({ status: "accepted" });
    expect(Number(accepted.id)).toBeGreaterThan(Number(registered.id));
    const stats = await stream.next((event) => event.event === "stats" && event.data.patch.registered_devices === 1);
    expect(stats.data.patch).toEqual({
      registered_devices: 1,
      online_devices: 1,
      pending_devices: 0,
      rejected_devices: 0,
      active_sessions: 0,
    });

    const name = uniqueName("renamed");
    await call("PUT", `/api/devices/${uid}`, { ...owner, body: { name } });
    expect((await stream.next(about(uid, "device.updated"))).data.patch).toEqual({ name });
    await call("POST", `/api/devices/${uid}/tags`, { ...owner, body: { tag: "edge" } });
    await stream.next((event) => about(uid, "device.updated")(event) && "tags" in event.data.patch);

    await call("POST", `/internal/devices/${uid}/offline`, { token: (await authDevice(body)).body.token });
    expect((await stream.next(about(uid, "device.offline"))).data.patch).toMatchObject({ online: false });
    // The next heartbeat brings it back.
    await authDevice(body);
    expect((await stream.next(about(uid, "device.online"))).data.patch).toMatchObject({ online: true });

    await call("DELETE", `/api/devices/${uid}`, owner);
    await stream.next(about(uid, "device.removed"));
    const ids = stream.events.filter((event) => event.event !== "stats").map((event) => Number(event.id));
    expect(ids).toEqual(ids.toSorted((a, b) => a - b));
  });

  it("sends sessions started and ended", async () => {
    const namespace = await seedNamespace();
    const stream = await eventsOf({ token: namespace.owner.tenantToken });
    const { session, device } = await seedSession(namespace);
    const started = await stream.next(about(session.uid, "session.started"));
    expect(started.data.patch).toMatchObject({ uid: session.uid, device_uid: device.uid, active: true });
    await stream.next((event) => event.event === "stats" && event.data.patch.active_sessions === 1);
    const closed = await call("POST", `/api/sessions/${session.uid}/close`, {
      token: namespace.owner.tenantToken,
      body: { device: device.uid },
    });
    expect(closed.status).toBeLessThan(300);
    expect((await stream.next(about(session.uid, "session.ended"))).data.patch).toMatchObject({ active: false });
  });

  it("sends a member of another namespace nothing of this one", async () => {
    const [mine, theirs] = await Promise.all([seedNamespace(), seedNamespace()]);
    const observer = await seedMember(theirs, "observer");
    const theirStream = await eventsOf({ token: observer.tenantToken });
    const myDevice = await seedDevice(mine, { status: "accept", tags: ["edge"] });
    await seedSession(mine, { device: myDevice });
    const marker = await seedDevice(theirs);
    await theirStream.next(about(marker.uid, "device.registered"));
    const foreign = theirStream.events.filter(
      (event) => event.data.uid === myDevice.uid || event.data.patch.tenant_id === mine.tenantId,
    );
    expect(foreign).toEqual([]);
    expect(theirStream.events.every((event) => event.event === "stats" || event.data.uid !== myDevice.uid)).toBe(true);
  });

  it("replays the events after Last-Event-ID to a client that reconnects, and resets one that asks for what it cannot have", async () => {
    const namespace = await seedNamespace();
    const owner = { token: namespace.owner.tenantToken };
    const first = await eventsOf(owner);
    const device = await seedDevice(namespace);
    const registered = await first.next(about(device.uid, "device.registered"));
    first.close();

    // Missed while away.
    await call("PATCH", `/api/devices/${device.uid}/accept`, owner);
    await call("PUT", `/api/devices/${device.uid}`, { ...owner, body: { name: uniqueName("again") } });
    const again = await eventsOf({ ...owner, lastEventId: registered.id });
    const updated = await again.next(about(device.uid, "device.updated"));
    const replayed = again.events.filter((event) => event.event !== "stats");
    expect(replayed.map((event) => event.event)).toEqual(["device.status", "device.updated"]);
    expect(replayed.every((event) => Number(event.id) > Number(registered.id))).toBe(true);

    // Live events follow the replay, once each (a stats message carries the id of the last event
    // sent before it, so that a reconnect from it misses nothing: it is no second copy).
    await call("DELETE", `/api/devices/${device.uid}`, owner);
    await again.next(about(device.uid, "device.removed"));
    const copies = again.events.filter((event) => event.event !== "stats" && event.id === updated.id);
    expect(copies).toHaveLength(1);

    for (const lastEventId of ["not-a-number", "999999999999"]) {
      const lost = await eventsOf({ ...owner, lastEventId });
      const reset = await lost.next((event) => event.event === "reset");
      expect(reset.data).toMatchObject({ type: "reset", uid: namespace.tenantId, patch: {} });
      expect(Number(reset.id)).toBeGreaterThanOrEqual(Number(updated.id));
    }
  });
});

// Several instances share one PostgreSQL server; the embedded database has one instance only.
const isPostgres = inject("databaseUrl") !== "";

describe.skipIf(!isPostgres)("an instance sharing the database", () => {
  let second: RunningServer;
  beforeAll(async () => {
    // Instances share the database and the JWT key: a token of one is good on the other.
    const jwtSecret = readFileSync(path.join(inject("dataDir"), "jwt.key"), "utf8").trim();
    second = await startServer({ DATABASE_URL: inject("databaseUrl"), JWT_SECRET: jwtSecret });
  });
  afterAll(async () => {
    await second?.stop();
    if (second) rmSync(second.dataDir, { recursive: true, force: true });
  });

  it("streams the events of changes made through the other instance", async () => {
    const namespace = await seedNamespace();
    const owner = { token: namespace.owner.tenantToken };
    const stream = await eventsOf({ ...owner, baseUrl: second.url });
    expect(stream.status).toBe(200);
    const device = await seedDevice(namespace);
    const registered = await stream.next(about(device.uid, "device.registered"), 5);
    const acceptedAt = Date.now();
    await call("PATCH", `/api/devices/${device.uid}/accept`, owner);
    const accepted = await stream.next(about(device.uid, "device.status"), 5);
    // Notified at once, not found by the 5-second poll.
    expect(accepted.receivedAt - acceptedAt).toBeLessThan(2_000);
    const again = await eventsOf({ ...owner, baseUrl: second.url, lastEventId: registered.id });
    expect((await again.next(about(device.uid, "device.status"))).id).toBe(accepted.id);
  });

  it("streams a device going offline when its agent, whose tunnel is on the other instance, stops", async () => {
    const namespace = await seedNamespace();
    const owner = { token: namespace.owner.tenantToken };
    const stream = await eventsOf({ ...owner, baseUrl: second.url });
    const agent = await startAgentInProcess(inject("baseUrl"), namespace.tenantId);
    try {
      const registered = await stream.next(
        (event) => event.event === "device.registered" && event.data.patch.name === agent.hostname,
      );
      await waitFor("the tunnel", () => agent.agent.tunnel.phase === "connected");
      const stoppedAt = Date.now();
      await agent.stop();
      const offline = await stream.next(about(registered.data.uid, "device.offline"), 5);
      expect(offline.receivedAt - stoppedAt).toBeLessThan(2_000);
    } finally {
      await agent.stop();
    }
  });
});
