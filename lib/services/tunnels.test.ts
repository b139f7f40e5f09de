import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { events } from "@/models/events";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import {
  TunnelOwnershipWriter,
  tunnelAdmissionReader,
  tunnelAdmissions,
  unscopedForgetInstanceTunnels,
  unscopedForgetTunnelOwners,
  unscopedRecordTunnelOwners,
  unscopedTunnelAdmittedDevices,
  unscopedTunnelOwner,
} from "./tunnels";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

describe("the devices a tunnel may serve", () => {
  it("are accepted and pending devices of the token's namespace, answered with their stored key", async () => {
    const { tenantId } = await seedScope(db);
    const accepted = await insertDevice(db, tenantId, "accepted");
    const pending = await insertDevice(db, tenantId, "pending");
    const rejected = await insertDevice(db, tenantId, "rejected");
    const elsewhere = await seedScope(db);
    const asked = [
      { uid: accepted, tenantId },
      { uid: pending, tenantId },
      { uid: rejected, tenantId },
      { uid: accepted, tenantId: elsewhere.tenantId },
      { uid: "0".repeat(64), tenantId },
    ];
    expect(await tunnelAdmissions(db, asked)).toEqual([
      { status: "accepted", publicKey: expect.stringContaining("BEGIN PUBLIC KEY") },
      { status: "pending", publicKey: expect.stringContaining("BEGIN PUBLIC KEY") },
      undefined,
      undefined,
      undefined,
    ]);
    // Asked one at a time in the same step, as tunnels arrive: the same answers.
    const admitted = tunnelAdmissionReader(db);
    const answers = await Promise.all(asked.map(({ uid, tenantId: tenant }) => admitted(uid, tenant)));
    expect(answers.map((answer) => answer?.status)).toEqual(["accepted", "pending", undefined, undefined, undefined]);
  });

  it("are still accepted or pending when swept, in any namespace", async () => {
    const first = await seedScope(db);
    const second = await seedScope(db);
    const kept = [
      await insertDevice(db, first.tenantId, "accepted"),
      await insertDevice(db, second.tenantId, "pending"),
    ];
    const dropped = [await insertDevice(db, first.tenantId, "rejected"), "0".repeat(64)];
    expect(await unscopedTunnelAdmittedDevices(db, [...kept, ...dropped])).toEqual(new Set(kept));
  });
});

describe("tunnel ownership rows", () => {
  async function devicesOfOneNamespace(count: number) {
    const { tenantId } = await seedScope(db);
    return Promise.all(Array.from({ length: count }, () => insertDevice(db, tenantId, "accepted")));
  }

  it("name the instance that registered the tunnel last", async () => {
    const [device = ""] = await devicesOfOneNamespace(1);
    expect(await unscopedTunnelOwner(db, device)).toBeUndefined();
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: device, clockSkewMs: null }]);
    await unscopedRecordTunnelOwners(db, "http://b", [{ uid: device, clockSkewMs: null }]);
    expect(await unscopedTunnelOwner(db, device)).toBe("http://b");
  });

  it("are forgotten only by the instance that holds them", async () => {
    const [device = ""] = await devicesOfOneNamespace(1);
    await unscopedRecordTunnelOwners(db, "http://b", [{ uid: device, clockSkewMs: null }]);
    // The older holder's tunnel closing after the newer one registered leaves the row.
    await unscopedForgetTunnelOwners(db, "http://a", [device]);
    expect(await unscopedTunnelOwner(db, device)).toBe("http://b");
    await unscopedForgetTunnelOwners(db, "http://b", [device]);
    expect(await unscopedTunnelOwner(db, device)).toBeUndefined();
  });

  it("are forgotten per instance, or all at once", async () => {
    const [first = "", second = ""] = await devicesOfOneNamespace(2);
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: first, clockSkewMs: null }]);
    await unscopedRecordTunnelOwners(db, "http://b", [{ uid: second, clockSkewMs: null }]);
    await unscopedForgetInstanceTunnels(db, "http://a");
    expect([await unscopedTunnelOwner(db, first), await unscopedTunnelOwner(db, second)]).toEqual([
      undefined,
      "http://b",
    ]);
    await unscopedForgetInstanceTunnels(db, undefined);
    expect(await unscopedTunnelOwner(db, second)).toBeUndefined();
  });
});

describe("a device's tunnel and its online state", () => {
  const isOnline = async (uid: string) =>
    (await db.select({ online: devices.online }).from(devices).where(eq(devices.uid, uid)))[0]?.online;
  const eventsOf = async (uid: string) =>
    (await db.select({ type: events.type }).from(events).where(eq(events.subject, uid))).map((row) => row.type);

  it("is online while a tunnel is up, offline at once when the last one closes, with an event each time", async () => {
    const { tenantId } = await seedScope(db);
    const device = await insertDevice(db, tenantId, "accepted");
    expect(await isOnline(device)).toBe(false);
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: device, clockSkewMs: null }]);
    expect(await isOnline(device)).toBe(true);
    // A newer tunnel on another instance: the older one closing changes nothing.
    await unscopedRecordTunnelOwners(db, "http://b", [{ uid: device, clockSkewMs: null }]);
    await unscopedForgetTunnelOwners(db, "http://a", [device]);
    expect(await isOnline(device)).toBe(true);
    await unscopedForgetTunnelOwners(db, "http://b", [device]);
    expect(await isOnline(device)).toBe(false);
    expect(await eventsOf(device)).toEqual(["device.online", "device.offline"]);
  });

  it("is offline for every device of an instance whose rows are forgotten", async () => {
    const { tenantId } = await seedScope(db);
    const [here, there] = [await insertDevice(db, tenantId, "accepted"), await insertDevice(db, tenantId, "accepted")];
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: here, clockSkewMs: null }]);
    await unscopedRecordTunnelOwners(db, "http://b", [{ uid: there, clockSkewMs: null }]);
    await unscopedForgetInstanceTunnels(db, "http://a");
    expect([await isOnline(here), await isOnline(there)]).toEqual([false, true]);
  });
});

describe("the instance's ownership writer", () => {
  const onlineOf = async (uids: string[]) =>
    Promise.all(
      uids.map(
        async (uid) =>
          (await db.select({ online: devices.online }).from(devices).where(eq(devices.uid, uid)))[0]?.online,
      ),
    );

  it("writes a burst of tunnels coming and going together, each device as its last change leaves it", async () => {
    const { tenantId } = await seedScope(db);
    const uids = await Promise.all(Array.from({ length: 40 }, () => insertDevice(db, tenantId, "accepted")));
    const writer = new TunnelOwnershipWriter(db, () => "http://a");
    for (const uid of uids) writer.opened(uid, 5);
    // Closed before the batch was written: never recorded, never announced.
    for (const uid of uids.slice(0, 10)) writer.closed(uid);
    // A device deleted since its tunnel came up is passed over, the others are written.
    writer.opened("0".repeat(64), null);
    expect(writer.backlog).toBe(51);
    await writer.settled();
    expect(writer.backlog).toBe(0);
    expect(await onlineOf(uids)).toEqual([...Array(10).fill(false), ...Array(30).fill(true)]);
    expect(await unscopedTunnelOwner(db, uids[20] ?? "")).toBe("http://a");
    const announced = await db.select({ subject: events.subject }).from(events).where(eq(events.tenantId, tenantId));
    expect(announced.map((row) => row.subject).toSorted()).toEqual(uids.slice(10).toSorted());
  });

  it("keeps a device's changes in their order across batches", async () => {
    const { tenantId } = await seedScope(db);
    const uid = await insertDevice(db, tenantId, "accepted");
    const writer = new TunnelOwnershipWriter(db, () => "http://a");
    writer.opened(uid, null);
    await writer.settled();
    writer.closed(uid);
    const closing = writer.settled();
    // A new tunnel while the close is being written: the device ends online.
    writer.opened(uid, null);
    await closing;
    await writer.settled();
    expect(await onlineOf([uid])).toEqual([true]);
    expect(await unscopedTunnelOwner(db, uid)).toBe("http://a");
  });
});
