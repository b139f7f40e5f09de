import { and, count, eq } from "drizzle-orm";
import { deviceCounts } from "@/models/device-counts";
import { sessions } from "@/models/sessions";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";

/**
 * The namespace's device counts by status (online among the accepted ones) and its active
 * sessions. The device counts are the ones `device_counts` keeps: a namespace's few rows, where
 * counting its devices took 5 ms at 10,000 (docs/performance.md).
 */
export async function getStats(db: Executor, scope: Scope) {
  // Asked together: one wait for the embedded database's thread instead of two.
  const [counts, [activeSessions]] = await Promise.all([
    db
      .select({ status: deviceCounts.status, count: deviceCounts.count, online: deviceCounts.online })
      .from(deviceCounts)
      .where(eq(deviceCounts.tenantId, scope.tenantId)),
    db
      .select({ count: count() })
      .from(sessions)
      .where(and(eq(sessions.tenantId, scope.tenantId), eq(sessions.active, true))),
  ]);
  const byStatus = (status: string) => counts.find((row) => row.status === status);
  return {
    registered_devices: byStatus("accepted")?.count ?? 0,
    online_devices: byStatus("accepted")?.online ?? 0,
    pending_devices: byStatus("pending")?.count ?? 0,
    rejected_devices: byStatus("rejected")?.count ?? 0,
    active_sessions: activeSessions?.count ?? 0,
  };
}
