import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { and, eq, inArray, lte, or, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { type WebhookDeliveryRow, type WebhookRow, webhookDeliveries, webhooks } from "@/models/webhooks";
import { openSecret } from "../auth/secret-box";
import { type Config, getConfig } from "../config";
import { type Executor, getDb } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { processRound } from "../process-state";
import { version } from "../version";
import { allowList, checkConnectorAddress, type Resolver, systemResolver } from "./connector-address";

// A claimed delivery is not claimed again (by this or another instance) before this many seconds:
// longer than an attempt may take (resolving the name, then the receiver's time limit), so that a
// server killed mid-attempt leaves it to another round soon after.
const claimSecondsOf = (config: Config) => config.WEBHOOK_TIMEOUT_SECONDS * 2 + 10;
const batchSize = 20;
/** The most of a receiver's answer that is read; the delivery keeps the first `keptAnswer` characters. */
const maxAnswerBytes = 64 * 1024;
const keptAnswer = 1024;
const longestRetrySeconds = 6 * 3600;

/** Seconds before attempt `attempts + 1`: the first retry's delay, 4 times longer after each failure, at most 6 h. */
export const retryDelaySeconds = (config: Config, attempts: number) =>
  Math.min(config.WEBHOOK_RETRY_SECONDS * 4 ** Math.max(0, attempts - 1), longestRetrySeconds);

type Attempt = { status?: number; body?: string; error?: string; durationMs: number };

/** The body of a delivery, as Standard Webhooks lays it out: type, time of the event, data. */
export const deliveryBody = (delivery: WebhookDeliveryRow, tenantId: string) =>
  JSON.stringify({
    type: delivery.eventType,
    timestamp: delivery.createdAt.toISOString(),
    data: { tenant_id: tenantId, ...delivery.data },
  });

/**
 * POSTs one attempt of a delivery. The URL's host is resolved and checked here, at dial time (the
 * connectors' address rule, with WEBHOOK_ALLOWED_CIDRS), and the request goes to the address
 * checked; redirects are not followed; the answer is read up to 64 KiB within the time limit.
 */
async function attempt(
  webhook: WebhookRow,
  delivery: WebhookDeliveryRow,
  config: Config,
  resolve: Resolver,
): Promise<Attempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = new URL(webhook.url);
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const { address, family } = await checkConnectorAddress(
      host,
      allowList(config.WEBHOOK_ALLOWED_CIDRS),
      resolve,
      "WEBHOOK_ALLOWED_CIDRS",
    );
    const body = deliveryBody(delivery, webhook.tenantId);
    const secret = openSecret(webhook.sealedSecret, `webhook:${webhook.id}`);
    const sentAt = new Date();
    const headers = {
      "content-type": "application/json",
      "user-agent": `device-access-webhooks/${version}`,
      host: url.host,
      "webhook-id": delivery.id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(delivery.id, sentAt, body),
    };
    const answer = await new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
      const request = (url.protocol === "https:" ? https : http).request({
        host: address,
        family,
        port: url.port || (url.protocol === "https:" ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers,
        // The certificate is checked against the URL's name, not the address dialled.
        servername: isIP(host) ? undefined : host,
        agent: false,
        signal: AbortSignal.timeout(config.WEBHOOK_TIMEOUT_SECONDS * 1000),
      });
      request.on("error", reject);
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const finish = () => {
          resolveAnswer({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8").slice(0, keptAnswer),
          });
          response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          if (received >= maxAnswerBytes) return;
          chunks.push(chunk);
          received += chunk.length;
          if (received >= maxAnswerBytes) finish();
        });
        response.on("end", finish);
        response.on("error", reject);
      });
      request.end(body);
    });
    return { status: answer.status, body: answer.body, durationMs: elapsed() };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      error: timedOut ? `no answer within ${config.WEBHOOK_TIMEOUT_SECONDS} s` : errorText(error).slice(0, keptAnswer),
      durationMs: elapsed(),
    };
  }
}

/** Why an answer is not a delivery, or undefined for a 2xx. */
function refusalOf(answer: Attempt): string | undefined {
  if (answer.status === undefined) return answer.error;
  if (answer.status >= 200 && answer.status < 300) return undefined;
  if (answer.status >= 300 && answer.status < 400) return `answered ${answer.status}: redirects are not followed`;
  return `answered ${answer.status}`;
}

async function deliver(db: Executor, config: Config, resolve: Resolver, webhook: WebhookRow, row: WebhookDeliveryRow) {
  const answer = await attempt(webhook, row, config, resolve);
  const refusal = refusalOf(answer);
  const isLast = row.attempts >= config.WEBHOOK_MAX_ATTEMPTS;
  const outcome = {
    responseStatus: answer.status ?? null,
    responseBody: answer.body ?? null,
    lastError: refusal ?? null,
    durationMs: answer.durationMs,
  };
  if (refusal) {
    log.info(isLast ? "webhook not delivered: giving up" : "webhook not delivered: will retry", {
      delivery: row.id,
      webhook: webhook.id,
      attempts: row.attempts,
      error: refusal,
    });
  }
  await db
    .update(webhookDeliveries)
    .set(
      !refusal
        ? { ...outcome, status: "delivered" }
        : isLast
          ? { ...outcome, status: "failed" }
          : {
              ...outcome,
              nextAttemptAt: sql`now() + make_interval(secs => ${retryDelaySeconds(config, row.attempts)})`,
            },
    )
    // A redelivery asked for meanwhile started the count again: this attempt's outcome is not its last word.
    .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.attempts, row.attempts)));
}

/**
 * Sends the deliveries that are due. Each is claimed first (its next attempt moved ahead, in one
 * statement that skips rows another instance holds), so no delivery is sent twice at once and a
 * server killed mid-attempt leaves it to be tried again. A disabled webhook's deliveries wait
 * (its test events go).
 */
export async function deliverDueWebhooks(db: Executor, config: Config, resolve: Resolver = systemResolver) {
  for (;;) {
    const enabledWebhooks = db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.enabled, true));
    const due = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, sql`now()`),
          or(inArray(webhookDeliveries.webhookId, enabledWebhooks), eq(webhookDeliveries.eventType, "webhook.test")),
        ),
      )
      .orderBy(webhookDeliveries.nextAttemptAt)
      .limit(batchSize)
      .for("update", { skipLocked: true });
    const claimed = await db
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastAttemptAt: sql`now()`,
        nextAttemptAt: sql`now() + make_interval(secs => ${claimSecondsOf(config)})`,
      })
      .where(inArray(webhookDeliveries.id, due))
      .returning();
    if (claimed.length === 0) return;
    const targets = await db
      .select()
      .from(webhooks)
      .where(
        inArray(
          webhooks.id,
          claimed.map((row) => row.webhookId),
        ),
      );
    const byId = new Map(targets.map((webhook) => [webhook.id, webhook]));
    await Promise.all(
      claimed.map((row) => {
        const webhook = byId.get(row.webhookId);
        return webhook ? deliver(db, config, resolve, webhook, row) : undefined;
      }),
    );
  }
}

/** Runs a delivery round now, or right after the one under way. Never throws. */
export const startWebhookDelivery = processRound("webhook delivery round", () =>
  deliverDueWebhooks(getDb(), getConfig()),
);

/** Forgets delivered and failed deliveries older than 30 days; crosses tenants by nature. */
export async function unscopedPurgeWebhookDeliveries(db: Executor) {
  await db
    .delete(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.status, ["delivered", "failed"]),
        lte(webhookDeliveries.createdAt, sql`now() - interval '30 days'`),
      ),
    );
}
