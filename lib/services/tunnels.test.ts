import { describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import {
  acceptedDeviceKey,
  unscopedForgetInstanceTunnels,
  unscopedForgetTunnelOwner,
  unscopedRecordTunnelOwner,
  unscopedStillAcceptedDevices,
  unscopedTunnelOwner,
} from "./tunnels";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

describe("the devices a tunnel may serve", () => {
  it("are accepted devices of the token's namespace, answered with their stored key", async () => {
    const { tenantId } = await seedScope(db);
    const accepted = await insertDevice(db, tenantId, "accepted");
    const pending = await insertDevice(db, tenantId, "pending");
    const elsewhere = await seedScope(db);
    expect(await acceptedDeviceKey(db, accepted, tenantId)).toContain("BEGIN PUBLIC KEY");
    expect(await acceptedDeviceKey(db, pending, tenantId)).toBeUndefined();
    expect(await acceptedDeviceKey(db, accepted, elsewhere.tenantId)).toBeUndefined();
  });

  it("are still accepted when swept, in any namespace", async () => {
    const first = await seedScope(db);
    const second = await seedScope(db);
    const kept = [
      await insertDevice(db, first.tenantId, "accepted"),
      await insertDevice(db, second.tenantId, "accepted"),
    ];
    const dropped = [await insertDevice(db, first.tenantId, "rejected"), "0".repeat(64)];
    expect(await unscopedStillAcceptedDevices(db, [...kept, ...dropped])).toEqual(new Set(kept));
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
