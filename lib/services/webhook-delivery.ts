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
import { processRound, processSingleton } from "../process-state";
import { version } from "../version";
import { allowList, checkConnectorAddress, type Resolver, systemResolver } from "./connector-address";

// A claimed delivery is not claimed again (by this or another instance) before this many seconds:
// longer than an attempt may take (resolving the name, then the receiver's time limit), so that a
// server killed mid-attempt leaves it to another round soon after.
const claimSecondsOf = (config: Config) => config.WEBHOOK_TIMEOUT_SECONDS * 2 + 10;
/** The most of a receiver's answer that is read; the delivery keeps the first `keptAnswer` characters. */
const maxAnswerBytes = 64 * 1024;
const keptAnswer = 1024;
const longestRetrySeconds = 6 * 3600;

/** Seconds before attempt `attempts + 1`: the first retry's delay, 4 times longer after each failure, at most 6 h. */
const retryDelaySeconds = (config: Config, attempts: number) =>
  Math.min(config.WEBHOOK_RETRY_SECONDS * 4 ** Math.max(0, attempts - 1), longestRetrySeconds);

type Attempt = { status?: number; body?: string; error?: string; durationMs: number };

/** The body of a delivery, as Standard Webhooks lays it out: type, time of the event, data. */
const deliveryBody = (delivery: WebhookDeliveryRow, tenantId: string) =>
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
            // PostgreSQL's text holds no NUL character.
            body: Buffer.concat(chunks).toString("utf8").slice(0, keptAnswer).replaceAll("\0", ""),
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

/** What an attempt leaves on its delivery. */
type Outcome = {
  id: string;
  attempts: number;
  status: "pending" | "delivered" | "failed";
  response_status: number | null;
  response_body: string | null;
  last_error: string | null;
  duration_ms: number;
  /** Seconds until the next attempt of a delivery still pending. */
  retry_seconds: number | null;
};

function outcomeOf(config: Config, webhook: WebhookRow, row: WebhookDeliveryRow, answer: Attempt): Outcome {
  const refusal = refusalOf(answer);
  const isLast = row.attempts >= config.WEBHOOK_MAX_ATTEMPTS;
  if (refusal) {
    log.info(isLast ? "webhook not delivered: giving up" : "webhook not delivered: will retry", {
      delivery: row.id,
      webhook: webhook.id,
      attempts: row.attempts,
      error: refusal,
    });
  }
  return {
    id: row.id,
    attempts: row.attempts,
    status: !refusal ? "delivered" : isLast ? "failed" : "pending",
    response_status: answer.status ?? null,
    response_body: answer.body ?? null,
    last_error: refusal ?? null,
    duration_ms: answer.durationMs,
    retry_seconds: refusal && !isLast ? retryDelaySeconds(config, row.attempts) : null,
  };
}

/** Writes the outcomes of finished attempts, all those that finished meanwhile in one statement. */
async function writeOutcomes(db: Executor, outcomes: Outcome[]) {
  await db.transaction(async (tx) => {
    // Without statistics (PGlite has no autovacuum to gather them) the planner hashes the whole
    // outbox for every write; one primary-key lookup per outcome is what it should do.
    await tx.execute(sql`set local enable_hashjoin = off`);
    await tx.execute(sql`set local enable_mergejoin = off`);
    await tx.execute(sql`
    update ${webhookDeliveries} as delivery set
      status = outcome.status, response_status = outcome.response_status,
      response_body = outcome.response_body, last_error = outcome.last_error, duration_ms = outcome.duration_ms,
      next_attempt_at = case when outcome.retry_seconds is null then delivery.next_attempt_at
        else now() + make_interval(secs => outcome.retry_seconds) end
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as outcome(
      id uuid, attempts int, status text, response_status int, response_body text, last_error text,
      duration_ms int, retry_seconds int)
    -- A redelivery asked for meanwhile started the count again: this attempt's outcome is not its last word.
    where delivery.id = outcome.id and delivery.attempts = outcome.attempts`);
  });
}

/** How many deliveries one instance has under way at once. */
const maxInFlight = 64;

/**
 * The process's deliveries: due ones are claimed (their next attempt moved ahead, in one statement
 * that skips rows another instance holds, so no delivery is sent twice at once and a server killed
 * mid-attempt leaves it to be tried again) up to 64 under way, the slots refilled as attempts end,
 * so a slow receiver holds one slot and not everyone's deliveries. Outcomes are written
 * together as attempts end. A disabled webhook's deliveries wait (its test events go).
 */
class WebhookDispatcher {
  private inFlight = 0;
  private readonly finished: Outcome[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly config: Config,
    private readonly resolve: Resolver,
  ) {}

  /**
   * Claims due deliveries into the free slots and starts them: once half the slots are free (or
   * none is in use), so that a busy outbox is claimed in batches rather than a row per statement.
   */
  async fill() {
    while (this.inFlight === 0 || this.inFlight <= maxInFlight / 2) {
      const claimed = await this.claim(maxInFlight - this.inFlight);
      if (claimed.length === 0) return;
      for (const { row, webhook } of claimed) {
        this.inFlight += 1;
        void attempt(webhook, row, this.config, this.resolve)
          .then((answer) => this.record(outcomeOf(this.config, webhook, row, answer)))
          .finally(() => {
            this.inFlight -= 1;
            startWebhookDelivery();
          });
      }
    }
  }

  private async claim(limit: number) {
    const claimed = await this.db.transaction(async (tx) => {
      // Without statistics (PGlite has no autovacuum to gather them) the planner reads every due
      // row and sorts them to take a few; the due index gives them in order.
      await tx.execute(sql`set local enable_bitmapscan = off`);
      await tx.execute(sql`set local enable_sort = off`);
      const enabledWebhooks = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.enabled, true));
      const due = tx
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
        .limit(limit)
        .for("update", { skipLocked: true });
      return tx
        .update(webhookDeliveries)
        .set({
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          lastAttemptAt: sql`now()`,
          nextAttemptAt: sql`now() + make_interval(secs => ${claimSecondsOf(this.config)})`,
        })
        .where(inArray(webhookDeliveries.id, due))
        .returning();
    });
    if (claimed.length === 0) return [];
    const targets = await this.db
      .select()
      .from(webhooks)
      .where(
        inArray(
          webhooks.id,
          claimed.map((row) => row.webhookId),
        ),
      );
    const byId = new Map(targets.map((webhook) => [webhook.id, webhook]));
    return claimed.flatMap((row) => {
      const webhook = byId.get(row.webhookId);
      return webhook ? [{ row, webhook }] : [];
    });
  }

  /** Queues an outcome; one write at a time takes every outcome queued meanwhile. */
  private record(outcome: Outcome) {
    this.finished.push(outcome);
    this.writing ??= (async () => {
      while (this.finished.length > 0) {
        const batch = this.finished.splice(0);
        await writeOutcomes(this.db, batch).catch((error: unknown) =>
          log.warn("writing webhook outcomes failed", { deliveries: batch.length, error: errorText(error) }),
        );
      }
      this.writing = undefined;
    })();
  }
}

const dispatchers = processSingleton("webhook dispatchers", () => new WeakMap<Executor, WebhookDispatcher>());

/** The process's dispatcher for a database handle. */
function webhookDispatcher(db: Executor, config: Config) {
  let dispatcher = dispatchers.get(db);
  if (!dispatcher) {
    dispatcher = new WebhookDispatcher(db, config, systemResolver);
    dispatchers.set(db, dispatcher);
  }
  return dispatcher;
}

/** Fills the free delivery slots now, or right after the claim under way. Never throws. */
export const startWebhookDelivery = processRound("webhook delivery round", () =>
  webhookDispatcher(getDb(), getConfig()).fill(),
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
