import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { events } from "@/models/events";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import {
  tunnelAdmission,
  unscopedForgetInstanceTunnels,
  unscopedForgetTunnelOwner,
  unscopedRecordTunnelOwner,
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
    expect(await tunnelAdmission(db, accepted, tenantId)).toMatchObject({
      status: "accepted",
      publicKey: expect.stringContaining("BEGIN PUBLIC KEY"),
    });
    expect(await tunnelAdmission(db, pending, tenantId)).toMatchObject({ status: "pending" });
    expect(await tunnelAdmission(db, rejected, tenantId)).toBeUndefined();
    expect(await tunnelAdmission(db, accepted, elsewhere.tenantId)).toBeUndefined();
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
    await unscopedRecordTunnelOwner(db, device, "http://a");
    await unscopedRecordTunnelOwner(db, device, "http://b");
    expect(await unscopedTunnelOwner(db, device)).toBe("http://b");
  });

  it("are forgotten only by the instance that holds them", async () => {
    const [device = ""] = await devicesOfOneNamespace(1);
    await unscopedRecordTunnelOwner(db, device, "http://b");
    // The older holder's tunnel closing after the newer one registered leaves the row.
    await unscopedForgetTunnelOwner(db, device, "http://a");
    expect(await unscopedTunnelOwner(db, device)).toBe("http://b");
    await unscopedForgetTunnelOwner(db, device, "http://b");
    expect(await unscopedTunnelOwner(db, device)).toBeUndefined();
  });

  it("are forgotten per instance, or all at once", async () => {
    const [first = "", second = ""] = await devicesOfOneNamespace(2);
    await unscopedRecordTunnelOwner(db, first, "http://a");
    await unscopedRecordTunnelOwner(db, second, "http://b");
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
    await unscopedRecordTunnelOwner(db, device, "http://a");
    expect(await isOnline(device)).toBe(true);
    // A newer tunnel on another instance: the older one closing changes nothing.
    await unscopedRecordTunnelOwner(db, device, "http://b");
    await unscopedForgetTunnelOwner(db, device, "http://a");
    expect(await isOnline(device)).toBe(true);
    await unscopedForgetTunnelOwner(db, device, "http://b");
    expect(await isOnline(device)).toBe(false);
    expect(await eventsOf(device)).toEqual(["device.online", "device.offline"]);
  });

  it("is offline for every device of an instance whose rows are forgotten", async () => {
    const { tenantId } = await seedScope(db);
    const [here, there] = [await insertDevice(db, tenantId, "accepted"), await insertDevice(db, tenantId, "accepted")];
    await unscopedRecordTunnelOwner(db, here, "http://a");
    await unscopedRecordTunnelOwner(db, there, "http://b");
    await unscopedForgetInstanceTunnels(db, "http://a");
    expect([await isOnline(here), await isOnline(there)]).toEqual([false, true]);
  });
});
