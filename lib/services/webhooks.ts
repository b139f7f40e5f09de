import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { type WebhookDeliveryRow, type WebhookRow, webhookDeliveries, webhooks } from "@/models/webhooks";
import type { Scope } from "../auth/credentials";
import { sealSecret } from "../auth/secret-box";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { notFound } from "../errors";
import { paged } from "../results";
import type { CreateWebhookBody, UpdateWebhookBody } from "../schemas/webhooks";
import { audited } from "./audit";
import { startWebhookDelivery } from "./webhook-delivery";

/** A new signing secret as Standard Webhooks writes it: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/** The sealed form of a webhook's secret, bound to its id (a sealed secret copied to another webhook does not open). */
export const sealWebhookSecret = (id: string, secret: string) => sealSecret(secret, `webhook:${id}`);

type LastDelivery = Pick<WebhookDeliveryRow, "status" | "createdAt" | "responseStatus">;

/** The webhook as the API answers it: never its secret. */
const describe = (row: WebhookRow, last: LastDelivery | undefined) => ({
  id: row.id,
  tenant_id: row.tenantId,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  last_delivery: last ? { status: last.status, at: last.createdAt, response_status: last.responseStatus } : null,
});

/** The newest delivery of each webhook. */
async function lastDeliveries(db: Executor, ids: string[]) {
  if (ids.length === 0) return new Map<string, LastDelivery>();
  const rows = await db
    .selectDistinctOn([webhookDeliveries.webhookId], {
      webhookId: webhookDeliveries.webhookId,
      status: webhookDeliveries.status,
      createdAt: webhookDeliveries.createdAt,
      responseStatus: webhookDeliveries.responseStatus,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.webhookId, ids))
    .orderBy(webhookDeliveries.webhookId, desc(webhookDeliveries.createdAt));
  return new Map(rows.map((row) => [row.webhookId, row]));
}

const describeDelivery = (row: WebhookDeliveryRow) => ({
  id: row.id,
  webhook_id: row.webhookId,
  type: row.eventType,
  data: row.data,
  status: row.status,
  attempts: row.attempts,
  created_at: row.createdAt,
  next_attempt_at: row.status === "pending" ? row.nextAttemptAt : null,
  last_attempt_at: row.lastAttemptAt,
  response_status: row.responseStatus,
  response_body: row.responseBody,
  error: row.lastError,
  duration_ms: row.durationMs,
});

/** What the audit trail keeps of a webhook: never its secret. */
const auditOfWebhook = (row: WebhookRow) => ({
  target: { type: "webhook", id: row.id },
  details: { url: row.url, events: row.events, enabled: row.enabled },
});

const ofWebhook = (scope: Scope, id: string) => and(eq(webhooks.tenantId, scope.tenantId), eq(webhooks.id, id));

async function findWebhook(db: Executor, scope: Scope, id: string, lock = false) {
  const query = db.select().from(webhooks).where(ofWebhook(scope, id));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound("webhook");
  return row;
}

export async function createWebhook(db: Executor, scope: Scope, input: CreateWebhookBody) {
  const id = crypto.randomUUID();
  const secret = input.secret ?? newSecret();
  const row = await audited(
    db,
    scope,
    "webhook.create",
    async (tx) => {
      const [created] = await tx
        .insert(webhooks)
        .values({
          id,
          tenantId: scope.tenantId,
          url: input.url,
          events: input.events,
          enabled: input.enabled,
          sealedSecret: sealWebhookSecret(id, secret),
        })
        .returning();
      if (!created) throw new Error("insert returned no row");
      return created;
    },
    auditOfWebhook,
  );
  return { ...describe(row, undefined), secret };
}

export async function listWebhooks(db: Executor, scope: Scope, query: { page: number; per_page: number }) {
  const where = eq(webhooks.tenantId, scope.tenantId);
  const { rows, total } = await readPage(
    db,
    { from: webhooks, where },
    db.select().from(webhooks).where(where).orderBy(asc(webhooks.createdAt), asc(webhooks.id)).$dynamic(),
    query,
  );
  const last = await lastDeliveries(
    db,
    rows.map((row) => row.id),
  );
  return paged(
    rows.map((row) => describe(row, last.get(row.id))),
    total,
  );
}

export async function getWebhook(db: Executor, scope: Scope, id: string) {
  const row = await findWebhook(db, scope, id);
  return describe(row, (await lastDeliveries(db, [id])).get(id));
}

export async function updateWebhook(db: Executor, scope: Scope, id: string, input: UpdateWebhookBody) {
  const row = await audited(
    db,
    scope,
    "webhook.update",
    async (tx) => {
      await findWebhook(tx, scope, id, true);
      const [updated] = await tx
        .update(webhooks)
        .set({ url: input.url, events: input.events, enabled: input.enabled })
        .where(ofWebhook(scope, id))
        .returning();
      if (!updated) throw notFound("webhook");
      return updated;
    },
    auditOfWebhook,
  );
  return describe(row, (await lastDeliveries(db, [id])).get(id));
}

export async function deleteWebhook(db: Executor, scope: Scope, id: string) {
  await audited(
    db,
    scope,
    "webhook.delete",
    async (tx) => {
      const [deleted] = await tx.delete(webhooks).where(ofWebhook(scope, id)).returning();
      if (!deleted) throw notFound("webhook");
      return deleted;
    },
    auditOfWebhook,
  );
}

/** A new secret, answered once; the old one stops signing at once. */
export async function rotateWebhookSecret(db: Executor, scope: Scope, id: string) {
  const secret = newSecret();
  const row = await audited(
    db,
    scope,
    "webhook.secret_rotate",
    async (tx) => {
      const [updated] = await tx
        .update(webhooks)
        .set({ sealedSecret: sealWebhookSecret(id, secret) })
        .where(ofWebhook(scope, id))
        .returning();
      if (!updated) throw notFound("webhook");
      return updated;
    },
    (updated) => ({ target: { type: "webhook", id: updated.id } }),
  );
  return { ...describe(row, (await lastDeliveries(db, [id])).get(id)), secret };
}

/** Queues a `webhook.test` delivery, due now, whether or not the webhook is enabled. */
export async function testWebhook(db: Executor, scope: Scope, id: string) {
  const row = await findWebhook(db, scope, id);
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({
      webhookId: row.id,
      eventType: "webhook.test",
      data: { message: "a test event sent from the console or the API", webhook_id: row.id },
    })
    .returning();
  if (!delivery) throw new Error("insert returned no row");
  startWebhookDelivery();
  return describeDelivery(delivery);
}

export async function listWebhookDeliveries(
  db: Executor,
  scope: Scope,
  id: string,
  query: { page: number; per_page: number; status?: WebhookDeliveryRow["status"] },
) {
  await findWebhook(db, scope, id);
  const where = and(
    eq(webhookDeliveries.webhookId, id),
    query.status === undefined ? undefined : eq(webhookDeliveries.status, query.status),
  );
  const { rows, total } = await readPage(
    db,
    { from: webhookDeliveries, where },
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .$dynamic(),
    query,
  );
  return paged(rows.map(describeDelivery), total);
}

/** Sends a delivery again now: same id and body (receivers that keep ids see a retry), attempts from zero. */
export async function redeliverWebhook(db: Executor, scope: Scope, id: string, deliveryId: string) {
  await findWebhook(db, scope, id);
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()` })
    .where(and(eq(webhookDeliveries.webhookId, id), eq(webhookDeliveries.id, deliveryId)))
    .returning();
  if (!row) throw notFound("delivery");
  startWebhookDelivery();
  return describeDelivery(row);
}
