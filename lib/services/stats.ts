import { and, count, eq, type SQL, sql } from "drizzle-orm";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";

const countWhere = (condition: SQL) => sql<number>`count(*) filter (where ${condition})`.mapWith(Number);

/** The namespace's device counts by status (online among the accepted ones) and its active sessions. */
export async function getStats(db: Executor, scope: Scope) {
  // Asked together: one wait for the embedded database's thread instead of two.
  const [[deviceCounts], [activeSessions]] = await Promise.all([
    db
      .select({
        registered: countWhere(sql`${devices.status} = 'accepted'`),
        online: countWhere(sql`${devices.status} = 'accepted' and ${devices.online}`),
        pending: countWhere(sql`${devices.status} = 'pending'`),
        rejected: countWhere(sql`${devices.status} = 'rejected'`),
      })
      .from(devices)
      .where(eq(devices.tenantId, scope.tenantId)),
    db
      .select({ count: count() })
      .from(sessions)
      .where(and(eq(sessions.tenantId, scope.tenantId), eq(sessions.active, true))),
  ]);
  return {
    registered_devices: deviceCounts?.registered ?? 0,
    online_devices: deviceCounts?.online ?? 0,
    pending_devices: deviceCounts?.pending ?? 0,
    rejected_devices: deviceCounts?.rejected ?? 0,
    active_sessions: activeSessions?.count ?? 0,
  };
}
