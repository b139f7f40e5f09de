import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { deviceCounts } from "@/models/device-counts";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { deleteDevice, setDeviceStatus } from "./devices";
import { takeOffline } from "./presence";
import { getStats } from "./stats";
import { unscopedForgetTunnelOwners, unscopedRecordTunnelOwners } from "./tunnels";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

// Sessions have no create operation (the SSH gateway makes them): rows are inserted here.
describe("getStats", () => {
  it("counts the namespace's active sessions only", async () => {
    const [scope, other] = [await seedScope(db), await seedScope(db)];
    const [device = ""] = await insertDevices(db, scope, [{ status: "accepted" }]);
    const [theirDevice = ""] = await insertDevices(db, other, [{ status: "accepted" }]);
    const session = (tenantId: string, deviceUid: string, active: boolean) => ({
      uid: randomUid(),
      tenantId,
      deviceUid,
      username: "root",
      ipAddress: "10.0.0.1",
      active,
    });
    await db
      .insert(sessions)
      .values([
        session(scope.tenantId, device, true),
        session(scope.tenantId, device, true),
        session(scope.tenantId, device, false),
        session(other.tenantId, theirDevice, true),
      ]);
    expect(await getStats(db, scope)).toEqual({
      registered_devices: 1,
      online_devices: 0,
      pending_devices: 0,
      rejected_devices: 0,
      active_sessions: 2,
    });
  });
});

describe("the online devices counted", () => {
  /** The namespace's counts as `device_counts` keeps them, and as counting its rows answers. */
  const kept = async (tenantId: string) =>
    db
      .select({ status: deviceCounts.status, count: deviceCounts.count, online: deviceCounts.online })
      .from(deviceCounts)
      .where(and(eq(deviceCounts.tenantId, tenantId), sql`${deviceCounts.count} > 0`))
      .orderBy(deviceCounts.status);
  const counted = async (tenantId: string) =>
    db
      .select({
        status: devices.status,
        count: sql<number>`count(*)::int`,
        online: sql<number>`(count(*) filter (where ${devices.online}))::int`,
      })
      .from(devices)
      .where(eq(devices.tenantId, tenantId))
      .groupBy(devices.status)
      .orderBy(devices.status);

  it("follow tunnels, offline sweeps, status changes and deletions, one row and many per statement", async () => {
    const [scope, other] = [await seedScope(db), await seedScope(db)];
    const uids = await insertDevices(db, scope, [
      { status: "accepted", online: true },
      { status: "accepted" },
      { status: "accepted" },
      { status: "pending" },
      { status: "accepted" },
    ]);
    const [theirs = ""] = await insertDevices(db, other, [{ status: "accepted", online: true }]);
    const [a = "", b = "", c = "", pending = "", e = ""] = uids;
    const steps: [string, () => Promise<unknown>][] = [
      ["inserted", async () => undefined],
      [
        "tunnels opened",
        () =>
          unscopedRecordTunnelOwners(
            db,
            "instance-1",
            [b, c, pending, theirs].map((uid) => ({ uid, clockSkewMs: null })),
          ),
      ],
      ["a tunnel opened again", () => unscopedRecordTunnelOwners(db, "instance-2", [{ uid: b, clockSkewMs: null }])],
      ["a tunnel closed", () => unscopedForgetTunnelOwners(db, "instance-1", [c])],
      ["an online device rejected", () => setDeviceStatus(db, scope, a, "reject")],
      ["an online device deleted", () => deleteDevice(db, scope, b)],
      ["the rest offline in one statement", () => takeOffline(db, eq(devices.tenantId, scope.tenantId), "test")],
      ["one online again", () => unscopedRecordTunnelOwners(db, "instance-1", [{ uid: e, clockSkewMs: null }])],
    ];
    for (const [step, run] of steps) {
      await run();
      expect({ step, counts: await kept(scope.tenantId) }).toEqual({ step, counts: await counted(scope.tenantId) });
      expect({ step, counts: await kept(other.tenantId) }).toEqual({ step, counts: await counted(other.tenantId) });
    }
    expect(await getStats(db, scope)).toMatchObject({ registered_devices: 2, online_devices: 1, pending_devices: 1 });
    expect((await getStats(db, other)).online_devices).toBe(1);
  });
});
