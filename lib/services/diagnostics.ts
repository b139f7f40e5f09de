import { and, desc, eq, notExists, sql } from "drizzle-orm";
import { auditEntries } from "@/models/audit";
import { deviceColumns, devicePresence, presenceOfDevice } from "@/models/device-presence";
import { deviceTransitions } from "@/models/device-transitions";
import { devices } from "@/models/devices";
import { tunnels } from "@/models/tunnels";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { notFound } from "../errors";
import { planRefusal } from "./plan-limit";

/** How many transitions a device keeps, and how many refused logins its diagnostics show. */
export const keptTransitions = 20;
const shownRefusals = 10;

/**
 * Why a device may be out of reach (docs/diagnostics.md): its state, its recent online/offline
 * transitions with their cause, its recent refused SSH logins with their reason (from the audit
 * trail), its last allowed login, the agent's clock against the server's when its tunnel opened,
 * the last reason its tunnel was refused or dropped, and what the namespace's plan says of it.
 */
export async function getDeviceDiagnostics(db: Executor, scope: Scope, uid: string) {
  const [device] = await db
    .select(deviceColumns)
    .from(devices)
    .innerJoin(devicePresence, presenceOfDevice)
    .where(and(eq(devices.uid, uid), eq(devices.tenantId, scope.tenantId)));
  if (!device) throw notFound("device");
  const transitions = await db
    .select({ at: deviceTransitions.at, online: deviceTransitions.online, cause: deviceTransitions.cause })
    .from(deviceTransitions)
    .where(and(eq(deviceTransitions.deviceUid, uid), eq(deviceTransitions.tenantId, scope.tenantId)))
    .orderBy(desc(deviceTransitions.id))
    .limit(keptTransitions);
  const logins = (outcome: "success" | "failure", limit: number) =>
    db
      .select()
      .from(auditEntries)
      .where(
        and(
          eq(auditEntries.tenantId, scope.tenantId),
          eq(auditEntries.action, "ssh.login"),
          eq(auditEntries.targetId, uid),
          eq(auditEntries.outcome, outcome),
        ),
      )
      .orderBy(desc(auditEntries.id))
      .limit(limit);
  const [tunnel] = await db
    .select({ clockSkewMs: tunnels.clockSkewMs })
    .from(tunnels)
    .where(eq(tunnels.deviceUid, uid));
  const refused = await logins("failure", shownRefusals);
  const [lastLogin] = await logins("success", 1);
  const refusal = device.status === "accepted" ? await planRefusal(db, scope.tenantId, uid) : undefined;
  const login = (row: typeof auditEntries.$inferSelect) => ({
    time: row.at,
    login: row.actorName,
    source: row.source,
  });
  return {
    uid: device.uid,
    name: device.name,
    status: device.status,
    online: device.online,
    last_seen: device.lastSeen,
    agent_version: device.info.version,
    clock_skew_ms: tunnel?.clockSkewMs ?? null,
    last_tunnel_error:
      device.tunnelError && device.tunnelErrorAt ? { time: device.tunnelErrorAt, message: device.tunnelError } : null,
    transitions: transitions.map((row) => ({ time: row.at, online: row.online, cause: row.cause })),
    refused_logins: refused.map((row) => ({ ...login(row), reason: String(row.details.reason ?? "") })),
    last_login: lastLogin ? login(lastLogin) : null,
    plan: { removed: device.status === "removed", refusal: refusal ?? null },
  };
}

/**
 * Keeps the newest transitions of each device and forgets those of devices that are gone; runs
 * on a timer, across namespaces, so the writes that add them stay one insert.
 */
export async function unscopedPruneTransitions(db: Executor): Promise<number> {
  const ranked = sql`select id, row_number() over (partition by device_uid order by id desc) as rank
    from ${deviceTransitions}`;
  const pruned = await db
    .delete(deviceTransitions)
    .where(
      sql`${deviceTransitions.id} in (select id from (${ranked}) as ranked where rank > ${keptTransitions})
        or ${notExists(db.select().from(devices).where(eq(devices.uid, deviceTransitions.deviceUid)))}`,
    )
    .returning({ id: deviceTransitions.id });
  return pruned.length;
}
