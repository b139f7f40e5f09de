import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { deviceCounts } from "@/models/device-counts";
import { type DeviceStatus, devices } from "@/models/devices";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { acceptDevice, addDeviceTag, deleteDevice, listDevices, setDeviceStatus } from "./devices";
import { deleteNamespace } from "./namespaces";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

/** A namespace with `max_devices` and a device of each given status. */
async function namespaceWithDevices(maxDevices: number, statuses: DeviceStatus[]) {
  const scope = await seedScope(db, maxDevices);
  const uids = await insertDevices(
    db,
    scope,
    statuses.map((status) => ({ status })),
  );
  return { scope, uids };
}

const acceptedCount = async (tenantId: string) =>
  db.$count(devices, and(eq(devices.tenantId, tenantId), eq(devices.status, "accepted")));

const statusOf = (result: PromiseSettledResult<unknown>) =>
  result.status === "fulfilled"
    ? 200
    : result.reason instanceof ApiError
      ? result.reason.status
      : String(result.reason);

describe("acceptDevice under concurrency", () => {
  it("lets exactly 3 of 10 concurrent accepts through at max_devices 3; the others get 402", async () => {
    const { scope, uids } = await namespaceWithDevices(3, Array(10).fill("pending"));
    const results = await Promise.allSettled(uids.map((uid) => acceptDevice(db, scope, uid)));
    expect(results.map(statusOf).sort()).toEqual([200, 200, 200, 402, 402, 402, 402, 402, 402, 402]);
    expect(await acceptedCount(scope.tenantId)).toBe(3);
  });

  it("counts devices accepted before: with 2 of 3 taken, 1 of 10 concurrent accepts passes", async () => {
    const { scope, uids } = await namespaceWithDevices(3, ["accepted", "accepted", ...Array(10).fill("pending")]);
    const results = await Promise.allSettled(uids.slice(2).map((uid) => acceptDevice(db, scope, uid)));
    expect(results.map(statusOf).filter((status) => status === 200)).toHaveLength(1);
    expect(await acceptedCount(scope.tenantId)).toBe(3);
  });

  it("has no cap at max_devices -1", async () => {
    const { scope, uids } = await namespaceWithDevices(-1, Array(10).fill("pending"));
    const results = await Promise.allSettled(uids.map((uid) => acceptDevice(db, scope, uid)));
    expect(results.map(statusOf)).toEqual(Array(10).fill(200));
    expect(await acceptedCount(scope.tenantId)).toBe(10);
  });

  it("refuses every accept at max_devices 0", async () => {
    const { scope, uids } = await namespaceWithDevices(0, ["pending"]);
    await expect(acceptDevice(db, scope, uids[0] ?? "")).rejects.toMatchObject({ status: 402 });
    expect(await acceptedCount(scope.tenantId)).toBe(0);
  });
});

describe("addDeviceTag under concurrency", () => {
  it("keeps at most 3 tags whatever the number of concurrent adds", async () => {
    const { scope, uids } = await namespaceWithDevices(-1, ["pending"]);
    const uid = uids[0] ?? "";
    const tags = Array.from({ length: 8 }, (_item, index) => `tag-${index}`);
    const results = await Promise.allSettled(tags.map((tag) => addDeviceTag(db, scope, uid, tag)));
    expect(results.map(statusOf).sort()).toEqual([200, 200, 200, 409, 409, 409, 409, 409]);
    const [row] = await db.select({ tags: devices.tags }).from(devices).where(eq(devices.uid, uid));
    expect(row?.tags).toHaveLength(3);
  });
});

describe("the device list's total", () => {
  const listQuery = { page: 1, per_page: 2, sort_by: "last_seen", order_by: "desc" } as const;
  const total = async (scope: Awaited<ReturnType<typeof seedScope>>, status?: DeviceStatus) =>
    (await listDevices(db, scope, { ...listQuery, status })).total;
  /** What counting the rows answers, for each status and for all. */
  const counted = async (tenantId: string) => {
    const rows = await db
      .select({ status: devices.status, count: sql<number>`count(*)::int` })
      .from(devices)
      .where(eq(devices.tenantId, tenantId))
      .groupBy(devices.status);
    return Object.fromEntries(rows.map((row) => [row.status, row.count]));
  };

  it("follows inserts, status changes and deletions, one at a time and many in one statement", async () => {
    const { scope, uids } = await namespaceWithDevices(-1, ["pending", "pending", "accepted", "rejected"]);
    const other = await namespaceWithDevices(-1, ["pending"]);
    await insertDevices(db, scope, Array(5).fill({ status: "accepted" }));
    await acceptDevice(db, scope, uids[0] ?? "");
    await setDeviceStatus(db, scope, uids[2] ?? "", "reject");
    await setDeviceStatus(db, scope, uids[3] ?? "", "pending");
    await deleteDevice(db, scope, uids[1] ?? "");
    await db.delete(devices).where(and(eq(devices.tenantId, scope.tenantId), eq(devices.status, "accepted")));
    await insertDevices(db, scope, [{ status: "accepted" }, { status: "unused" }]);

    const expected = await counted(scope.tenantId);
    expect(expected).toEqual({ accepted: 1, pending: 1, rejected: 1, unused: 1 });
    expect(await total(scope)).toBe(4);
    for (const status of ["accepted", "pending", "rejected", "unused"] as const)
      expect(await total(scope, status)).toBe(expected[status]);
    expect(await total(other.scope)).toBe(1);
  });

  it("counts what a filter selects", async () => {
    const scope = await seedScope(db);
    await insertDevices(db, scope, [{ name: "alpha-1" }, { name: "alpha-2" }, { name: "beta" }]);
    const filter = [{ type: "property", params: { name: "name", operator: "contains", value: "alpha" } }] as const;
    const page = await listDevices(db, scope, { ...listQuery, filter: [...filter] });
    expect(page.total).toBe(2);
  });

  it("leaves no count behind a deleted namespace", async () => {
    const { scope } = await namespaceWithDevices(-1, ["pending", "accepted"]);
    await deleteNamespace(db, scope);
    expect(await db.$count(deviceCounts, eq(deviceCounts.tenantId, scope.tenantId))).toBe(0);
  });
});
