import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors } from "@/models/connectors";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { withTestDatabase } from "@/testing/database";
import { type DockerEngine, startDockerEngine } from "@/testing/docker-engine";
import { seedScope } from "@/testing/rows/namespaces";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { containerDeviceUid, unscopedClaimDueConnectors, unscopedSyncDueConnectors } from "./connector-sync";
import { createConnector, deleteConnector, getConnector, getConnectorInfo, updateConnector } from "./connectors";
import { acceptDevice } from "./devices";

/** Connectors against a real Docker engine of the test's own (testing/docker-engine.ts). */

// The engine listens on the loopback, which connectors may only dial when allowed.
process.env.CONNECTOR_ALLOWED_CIDRS = "127.0.0.1/32";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});
let engine: DockerEngine;
beforeAll(async () => {
  engine = await startDockerEngine();
});
afterAll(async () => {
  await engine?.stop();
});

const instance = "instance-a";
/** One round of the status worker, with every connector due now. */
async function syncNow() {
  await db.update(connectors).set({ nextAttemptAt: new Date(0) });
  await unscopedSyncDueConnectors(db, instance, 1);
}
const deviceOf = async (uid: string) => (await db.select().from(devices).where(eq(devices.uid, uid)))[0];
const rowOf = async (uid: string) => (await db.select().from(connectors).where(eq(connectors.uid, uid)))[0];

describe("engine info", () => {
  let scope: Scope;
  beforeAll(async () => {
    scope = await seedScope(db);
  });

  it("answers the SPEC.md fields from the engine's own answer, over HTTP and HTTPS", async () => {
    const expected = JSON.parse(await engine.docker("info", "--format", "{{json .}}"));
    const plain = await createConnector(db, scope, {
      enable: false,
      address: "127.0.0.1",
      port: engine.port,
      secure: false,
      tls: null,
    });
    const info = await getConnectorInfo(db, scope, plain.uid);
    expect(Object.keys(info).sort()).toEqual(
      [
        "Containers",
        "ContainersPaused",
        "ContainersRunning",
        "ContainersStopped",
        "Driver",
        "DriverStatus",
        "ID",
        "Images",
        "Plugins",
      ].sort(),
    );
    expect(info).toMatchObject({ ID: expected.ID, Driver: "vfs", Images: expected.Images });
    expect(info.Plugins.Volume).toEqual(expected.Plugins.Volume);
    expect(info.Plugins.Network).toEqual(expected.Plugins.Network);

    const secure = await createConnector(db, scope, {
      enable: false,
      address: "localhost",
      port: engine.tlsPort,
      secure: true,
      tls: engine.client,
    });
    expect(secure.tls).toEqual({ ca: engine.client.ca, cert: engine.client.cert });
    expect(JSON.stringify(secure)).not.toContain("PRIVATE KEY");
    const [stored] = await db.select().from(connectors).where(eq(connectors.uid, secure.uid));
    expect(JSON.stringify(stored?.tls)).not.toContain("PRIVATE KEY");
    expect((await getConnectorInfo(db, scope, secure.uid)).ID).toBe(expected.ID);
  });

  it("answers 502 with the reason when the TLS material does not fit the engine", async () => {
    const stranger = await createConnector(db, scope, {
      enable: false,
      address: "127.0.0.1",
      port: engine.tlsPort,
      secure: true,
      tls: engine.strangerClient,
    });
    const failure = getConnectorInfo(db, scope, stranger.uid);
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toThrow(/TLS failure: .*certificate/);
    // The engine trusted, but it refuses a client certificate it did not sign.
    const refusedClient = await createConnector(db, scope, {
      enable: false,
      address: "127.0.0.1",
      port: engine.tlsPort,
      secure: true,
      tls: { ...engine.strangerClient, ca: engine.client.ca },
    });
    await expect(getConnectorInfo(db, scope, refusedClient.uid)).rejects.toThrow(/TLS failure/);
    // Plain HTTP to the TLS listener is no engine answer either.
    const plain = await createConnector(db, scope, {
      enable: false,
      address: "127.0.0.1",
      port: engine.tlsPort,
      secure: false,
      tls: null,
    });
    await expect(getConnectorInfo(db, scope, plain.uid)).rejects.toMatchObject({ status: 502 });
  });

  it("is a 404 for another namespace's connector", async () => {
    const other = await seedScope(db);
    const mine = await createConnector(db, scope, {
      enable: false,
      address: "127.0.0.1",
      port: engine.port,
      secure: false,
      tls: null,
    });
    await expect(getConnector(db, other, mine.uid)).rejects.toMatchObject({ status: 404 });
    await expect(getConnectorInfo(db, other, mine.uid)).rejects.toMatchObject({ status: 404 });
    await expect(deleteConnector(db, other, mine.uid)).rejects.toMatchObject({ status: 404 });
  });
});

describe("the status worker and containers as devices", () => {
  let scope: Scope;
  let connectorUid = "";
  beforeAll(async () => {
    // Only this block's connector is enabled: the earlier ones were created disabled.
    scope = await seedScope(db, 1);
    const connector = await createConnector(db, scope, {
      enable: true,
      address: "127.0.0.1",
      port: engine.port,
      secure: false,
      tls: null,
    });
    connectorUid = connector.uid;
  });

  it("connects, and makes each running container a pending device that goes offline and online with it", async () => {
    const firstId = await engine.runContainer("Web_Server.1");
    const secondId = await engine.runContainer("db");
    await syncNow();
    expect((await getConnector(db, scope, connectorUid)).status).toEqual({ State: "connected", Message: "" });
    const first = await deviceOf(containerDeviceUid(connectorUid, firstId));
    expect(first).toMatchObject({ name: "web-server-1", status: "pending", online: true, tenantId: scope.tenantId });
    expect(first?.info).toMatchObject({ pretty_name: "busybox-root:test", platform: "docker" });
    expect((await getConnector(db, scope, connectorUid)).containers).toBe(2);

    // Accepted through the device accept path, within max_devices (1 here).
    const secondUid = containerDeviceUid(connectorUid, secondId);
    await acceptDevice(db, scope, containerDeviceUid(connectorUid, firstId));
    await expect(acceptDevice(db, scope, secondUid)).rejects.toMatchObject({ status: 402 });
    await db.update(namespaces).set({ maxDevices: -1 }).where(eq(namespaces.tenantId, scope.tenantId));

    await engine.docker("stop", "-t", "0", firstId);
    await syncNow();
    expect(await deviceOf(containerDeviceUid(connectorUid, firstId))).toMatchObject({
      online: false,
      status: "accepted",
    });
    await engine.docker("start", firstId);
    await syncNow();
    expect(await deviceOf(containerDeviceUid(connectorUid, firstId))).toMatchObject({
      online: true,
      status: "accepted",
    });

    await engine.docker("rm", "-f", secondId);
    await syncNow();
    expect(await deviceOf(secondUid)).toBeUndefined();
  });

  it("reports the engine out of reach with back-off, and connected again when it is back", async () => {
    await engine.stopDaemon();
    try {
      await syncNow();
      const down = await rowOf(connectorUid);
      expect(down).toMatchObject({ state: "disconnected", message: "connection refused", failures: 1 });
      const devicesOf = await db.select().from(devices).where(eq(devices.tenantId, scope.tenantId));
      expect(devicesOf.every((device) => !device.online)).toBe(true);
      // Not due yet: the next round leaves it alone.
      expect(await unscopedSyncDueConnectors(db, instance, 1)).toBe(0);
      await syncNow();
      const later = await rowOf(connectorUid);
      expect(later?.failures).toBe(2);
      // The wait doubles: 1 s after the first failure, 2 s after the second.
      expect((later?.nextAttemptAt.getTime() ?? 0) - Date.now()).toBeGreaterThan(1000);
    } finally {
      await engine.startDaemon();
    }
    await syncNow();
    expect(await rowOf(connectorUid)).toMatchObject({ state: "connected", message: "", failures: 0 });
  });

  it("is synced by one instance at a time: another takes it only once the lease ran out", async () => {
    await db.update(connectors).set({ nextAttemptAt: new Date(0) });
    const mine = await unscopedClaimDueConnectors(db, "instance-a", 60);
    expect(mine.map((row) => row.uid)).toContain(connectorUid);
    expect(await unscopedClaimDueConnectors(db, "instance-b", 60)).toEqual([]);
    await db
      .update(connectors)
      .set({ leaseUntil: new Date(0) })
      .where(eq(connectors.uid, connectorUid));
    const taken = await unscopedClaimDueConnectors(db, "instance-b", 60);
    expect(taken.map((row) => row.uid)).toEqual([connectorUid]);
  });

  it("says when it is disabled, and deleting it removes its devices", async () => {
    const disabled = await updateConnector(db, scope, connectorUid, { enable: false });
    expect(disabled.status).toEqual({ State: "disconnected", Message: "disabled" });
    const before = await db.select().from(devices).where(eq(devices.tenantId, scope.tenantId));
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((device) => !device.online)).toBe(true);
    await deleteConnector(db, scope, connectorUid);
    expect(await db.select().from(devices).where(eq(devices.tenantId, scope.tenantId))).toEqual([]);
  });
});
