import { describe, expect, it } from "vitest";
import { sessions } from "@/models/sessions";
import { randomUid } from "@/testing/client";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { getStats } from "./stats";

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
