import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type DeviceStatus, devices } from "@/models/devices";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { acceptDevice, addDeviceTag } from "./devices";

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
