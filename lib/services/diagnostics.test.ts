import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devicePresence } from "@/models/device-presence";
import { deviceTransitions } from "@/models/device-transitions";
import { devices } from "@/models/devices";
import { withTestDatabase } from "@/testing/database";
import { insertDevice } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Db } from "../db";
import { markDeviceOffline, unscopedMarkSilentDevicesOffline } from "./agent";
import { getDeviceDiagnostics, keptTransitions, unscopedPruneTransitions } from "./diagnostics";
import { auditSshLogin } from "./ssh-access";
import { unscopedForgetInstanceTunnels, unscopedForgetTunnelOwners, unscopedRecordTunnelOwners } from "./tunnels";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const causes = async (scope: Awaited<ReturnType<typeof seedScope>>, uid: string) =>
  (await getDeviceDiagnostics(db, scope, uid)).transitions.map((row) => `${row.online ? "on" : "off"}: ${row.cause}`);

describe("a device's transitions", () => {
  it("keep each online/offline change with its cause, newest first", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId, "accepted");
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: uid, clockSkewMs: null }]);
    await unscopedForgetTunnelOwners(db, "http://a", [uid]);
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: uid, clockSkewMs: null }]);
    await unscopedForgetInstanceTunnels(db, "http://a");
    await unscopedRecordTunnelOwners(db, "http://a", [{ uid: uid, clockSkewMs: null }]);
    await markDeviceOffline(db, uid, { uid, tenantId: scope.tenantId });
    await db.update(devices).set({ online: true }).where(eq(devices.uid, uid));
    await db
      .update(devicePresence)
      .set({ lastSeen: sql`now() - interval '1 hour'` })
      .where(eq(devicePresence.uid, uid));
    await unscopedMarkSilentDevicesOffline(db, 120);
    expect(await causes(scope, uid)).toEqual([
      "off: no heartbeat for 120 s",
      "off: the agent said it is stopping",
      "on: tunnel opened",
      "off: the server holding its tunnel stopped",
      "on: tunnel opened",
      "off: tunnel closed",
      "on: tunnel opened",
    ]);
  });

  it("are pruned to the newest per device, and forgotten with the device", async () => {
    const scope = await seedScope(db);
    const [kept, removed] = [await insertDevice(db, scope.tenantId), await insertDevice(db, scope.tenantId)];
    const rows = (uid: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        deviceUid: uid,
        tenantId: scope.tenantId,
        online: index % 2 === 0,
        cause: `change ${index}`,
      }));
    await db.insert(deviceTransitions).values([...rows(kept, keptTransitions + 5), ...rows(removed, 3)]);
    await db.delete(devices).where(eq(devices.uid, removed));
    await unscopedPruneTransitions(db);
    const left = await causes(scope, kept);
    expect(left).toHaveLength(keptTransitions);
    expect(left[0]).toBe(`on: change ${keptTransitions + 4}`);
    expect(await db.select().from(deviceTransitions).where(eq(deviceTransitions.deviceUid, removed))).toEqual([]);
  });
});

describe("a device's diagnostics", () => {
  it("show its refused logins with their reason and its last allowed one", async () => {
    const scope = await seedScope(db);
    const uid = await insertDevice(db, scope.tenantId, "accepted");
    const [found] = await db.select().from(devices).where(eq(devices.uid, uid));
    if (!found) throw new Error("no device");
    const row = { ...found, isRecorded: false, announcement: "" };
    const reason = "firewall rule #3 (priority 1) denies the connection";
    await auditSshLogin(db, row, { user: "root", source: "192.0.2.7", session: "s1" });
    await auditSshLogin(db, row, { user: "admin", source: "192.0.2.8", session: "s2", refusal: reason });
    expect(await getDeviceDiagnostics(db, scope, uid)).toMatchObject({
      uid,
      status: "accepted",
      online: false,
      agent_version: "1",
      refused_logins: [{ login: "admin", source: "192.0.2.8", reason }],
      last_login: { login: "root", source: "192.0.2.7" },
      plan: { removed: false, refusal: null },
    });
  });

  it("are a 404 for another namespace's device", async () => {
    const mine = await seedScope(db);
    const theirs = await seedScope(db);
    const uid = await insertDevice(db, theirs.tenantId, "accepted");
    await expect(getDeviceDiagnostics(db, mine, uid)).rejects.toMatchObject({ status: 404 });
  });
});
