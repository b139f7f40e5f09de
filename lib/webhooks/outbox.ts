import { sql } from "drizzle-orm";
import type { WebhookEventType } from "@/models/enums";
import { type Executor, executePrepared } from "../db";

/** One event offered to a namespace's webhooks: its type and the `data` of the delivery's body. */
export type WebhookEvent = { tenantId: string; type: WebhookEventType; uid?: string; data: Record<string, unknown> };

/**
 * Queues a delivery of each event for every enabled webhook of its namespace that asked for its
 * type, in one statement on the caller's transaction: the delivery commits with the event it
 * carries, or not at all (docs/webhooks.md). A device's event carries the device's name when
 * the device still exists.
 */
export async function enqueueWebhookEvents(db: Executor, batch: WebhookEvent[]): Promise<void> {
  const offered = batch.filter((event) => event.tenantId !== "");
  if (offered.length === 0) return;
  const rows = offered.map((event) => ({
    tenant: event.tenantId,
    type: event.type,
    uid: event.uid ?? "",
    data: event.data,
  }));
  await executePrepared(
    db,
    sql`
    insert into webhook_deliveries (webhook_id, event_type, data)
    select w.id, e.type, e.data || coalesce(
      (select jsonb_build_object('name', d.name) from devices d where e.type like 'device.%' and d.uid = e.uid),
      '{}'::jsonb)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as e(tenant uuid, type text, uid text, data jsonb)
    join webhooks w on w.tenant_id = e.tenant and w.enabled and e.type = any(w.events)`,
  );
}
