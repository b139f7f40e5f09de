import { and, count, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { type BillingAccountRow, billingAccounts } from "@/models/billing";
import { deviceColumns, devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import { getConfig, isBillingOn } from "../config";
import type { Executor } from "../db";

/** The processor's subscription statuses that keep the paid plan (past_due: while it retries the payment). */
export const payingStatuses = new Set(["active", "trialing", "past_due"]);

export const isPaying = (status: string | null | undefined) => status != null && payingStatuses.has(status);

export type DeviceLimit = {
  /** Accepted devices the namespace may hold; -1: no cap. */
  limit: number;
  /** The free plan sets the limit (a subscription would lift it), rather than `max_devices`. */
  isFreePlan: boolean;
};

/**
 * How many accepted devices the namespace may hold: its `max_devices`, and, in the cloud edition
 * with billing on, no more than the free plan's until a subscription is active. With billing off
 * there is no plan, only `max_devices` (docs/billing.md).
 */
export async function deviceLimit(db: Executor, tenantId: string, maxDevices: number): Promise<DeviceLimit> {
  const config = getConfig();
  if (!isBillingOn(config)) return { limit: maxDevices, isFreePlan: false };
  const [account] = await db
    .select({ status: billingAccounts.subscriptionStatus })
    .from(billingAccounts)
    .where(eq(billingAccounts.tenantId, tenantId));
  const free = config.FREE_PLAN_DEVICES;
  if (isPaying(account?.status) || (maxDevices >= 0 && maxDevices <= free)) {
    return { limit: maxDevices, isFreePlan: false };
  }
  return { limit: free, isFreePlan: true };
}

const mostUsedWindowDays = 30;

/**
 * The namespace's accepted devices, the most used first: by sessions in the last 30 days, then
 * by the latest contact.
 */
export async function mostUsedDevices(db: Executor, tenantId: string, limit?: number) {
  const used = db
    .select({ deviceUid: sessions.deviceUid, sessions: count().as("sessions") })
    .from(sessions)
    .where(
      and(
        eq(sessions.tenantId, tenantId),
        eq(sessions.authenticated, true),
        gt(sessions.startedAt, sql`now() - make_interval(days => ${mostUsedWindowDays})`),
      ),
    )
    .groupBy(sessions.deviceUid)
    .as("used");
  const query = db
    .select({ device: deviceColumns })
    .from(devices)
    .innerJoin(devicePresence, presenceOfDevice)
    .leftJoin(used, eq(used.deviceUid, devices.uid))
    .where(and(eq(devices.tenantId, tenantId), eq(devices.status, "accepted")))
    .orderBy(sql`coalesce(${used.sessions}, 0) desc`, desc(devicePresence.lastSeen), devices.uid);
  const rows = limit === undefined ? await query : await query.limit(limit);
  return rows.map((row) => row.device);
}

/**
 * Until the owner chooses which devices to keep after a subscription ended, new sessions go only
 * to the most used devices within the free plan. Returns why the device is refused, or undefined.
 */
export async function planRefusal(db: Executor, tenantId: string, deviceUid: string): Promise<string | undefined> {
  if (!isBillingOn(getConfig())) return undefined;
  const [account] = await db
    .select({ isChoicePending: billingAccounts.isChoicePending, status: billingAccounts.subscriptionStatus })
    .from(billingAccounts)
    .where(eq(billingAccounts.tenantId, tenantId));
  if (!account?.isChoicePending || isPaying(account.status)) return undefined;
  const kept = await mostUsedDevices(db, tenantId, getConfig().FREE_PLAN_DEVICES);
  if (kept.some((device) => device.uid === deviceUid)) return undefined;
  return "blocked by the namespace's plan: its owner must choose the devices to keep, or subscribe";
}

/** `namespace.billing` of each namespace that has a billing account (billing on only). */
export async function namespaceBillings(db: Executor, tenantIds: string[]) {
  const described = new Map<string, NamespaceBilling>();
  if (!isBillingOn(getConfig()) || tenantIds.length === 0) return described;
  const rows = await db.select().from(billingAccounts).where(inArray(billingAccounts.tenantId, tenantIds));
  for (const row of rows) described.set(row.tenantId, describeBilling(row));
  return described;
}

export const describeBilling = (row: BillingAccountRow) => ({
  active: isPaying(row.subscriptionStatus),
  status: row.subscriptionStatus ?? "none",
  customer_id: row.customerId,
  subscription_id: row.subscriptionId ?? "",
  end_at: row.currentPeriodEnd ? Math.floor(row.currentPeriodEnd.getTime() / 1000) : 0,
  device_choice_pending: row.isChoicePending && !isPaying(row.subscriptionStatus),
});

export type NamespaceBilling = ReturnType<typeof describeBilling>;
