import { and, desc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Transporter } from "nodemailer";
import { type MailRow, mailOutbox } from "@/models/mail-outbox";
import { type Config, getConfig } from "../config";
import { type Executor, getDb } from "../db";
import { errorText, notFound } from "../errors";
import { log } from "../log";
import { processRound } from "../process-state";
import type { Mail } from "./templates";
import { mailTransport } from "./transport";

// A claimed mail is not claimed again (by this or another instance) before this many seconds.
const claimSeconds = 300;
const batchSize = 20;

/**
 * Records a mail in the outbox and returns at once: delivery happens in the background, so a
 * slow or dead mail server never delays or fails the request that caused the mail. Without
 * SMTP_URL the mail stays in the outbox (`kept`) and its text goes to the log, so that a person
 * trying the service can still follow the links (`npm run cli -- mail list`).
 */
export async function queueMail(db: Executor, mail: Mail): Promise<void> {
  const config = getConfig();
  const [row] = await db
    .insert(mailOutbox)
    .values({
      recipient: mail.to,
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html,
      status: config.SMTP_URL ? "pending" : "kept",
    })
    .returning({ id: mailOutbox.id });
  if (!config.SMTP_URL) {
    log.info("mail kept in the outbox (no SMTP_URL)", {
      id: row?.id,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    });
    return;
  }
  startDelivery();
}

/** Runs a delivery round now, or right after the one under way. Never throws. */
export const startDelivery = processRound("mail delivery round", () => deliverDueMail(getDb(), getConfig()));

/** Seconds before attempt `attempts + 1`: the retry delay, doubled after each failure, at most a day. */
const backoffSeconds = (config: Config, attempts: number) =>
  Math.min(config.MAIL_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), 86_400);

/**
 * Sends the mails that are due. Each is claimed first (its next attempt moved ahead, in one
 * statement that skips rows another instance holds), so no mail is sent twice at once.
 */
export async function deliverDueMail(db: Executor, config: Config): Promise<void> {
  const transport = mailTransport(config);
  if (!transport) return;
  for (;;) {
    const due = db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      .where(and(eq(mailOutbox.status, "pending"), lte(mailOutbox.nextAttemptAt, sql`now()`)))
      .orderBy(mailOutbox.nextAttemptAt)
      .limit(batchSize)
      .for("update", { skipLocked: true });
    const claimed = await db
      .update(mailOutbox)
      .set({
        attempts: sql`${mailOutbox.attempts} + 1`,
        nextAttemptAt: sql`now() + make_interval(secs => ${claimSeconds})`,
      })
      .where(inArray(mailOutbox.id, due))
      .returning();
    if (claimed.length === 0) return;
    await Promise.all(claimed.map((mail) => deliver(db, config, transport, mail)));
  }
}

async function deliver(db: Executor, config: Config, transport: Transporter, mail: MailRow) {
  try {
    await transport.sendMail({
      from: config.MAIL_FROM,
      to: mail.recipient,
      subject: mail.subject,
      text: mail.textBody,
      html: mail.htmlBody,
    });
    await db
      .update(mailOutbox)
      .set({ status: "sent", sentAt: sql`now()`, textBody: "", htmlBody: "", lastError: null })
      .where(eq(mailOutbox.id, mail.id));
  } catch (error) {
    const isLast = mail.attempts >= config.MAIL_MAX_ATTEMPTS;
    const lastError = errorText(error).slice(0, 1000);
    log.warn(isLast ? "mail not delivered: giving up" : "mail not delivered: will retry", {
      id: mail.id,
      attempts: mail.attempts,
      error: lastError,
    });
    await db
      .update(mailOutbox)
      .set(
        isLast
          ? { status: "failed", lastError }
          : { lastError, nextAttemptAt: sql`now() + make_interval(secs => ${backoffSeconds(config, mail.attempts)})` },
      )
      .where(eq(mailOutbox.id, mail.id));
  }
}

export type OutboxEntry = Pick<
  MailRow,
  "id" | "recipient" | "subject" | "status" | "attempts" | "lastError" | "createdAt" | "sentAt"
>;

/** The newest mails first, for the admin CLI. */
export async function unscopedListOutbox(db: Executor, limit = 50): Promise<OutboxEntry[]> {
  return db
    .select({
      id: mailOutbox.id,
      recipient: mailOutbox.recipient,
      subject: mailOutbox.subject,
      status: mailOutbox.status,
      attempts: mailOutbox.attempts,
      lastError: mailOutbox.lastError,
      createdAt: mailOutbox.createdAt,
      sentAt: mailOutbox.sentAt,
    })
    .from(mailOutbox)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(limit);
}

export async function unscopedGetMail(db: Executor, id: string): Promise<MailRow> {
  const [mail] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
  if (!mail) throw notFound(`mail ${id}`);
  return mail;
}

/** Forgets the record of mails older than 30 days; crosses tenants by nature. */
export async function unscopedPurgeOutbox(db: Executor) {
  await db.delete(mailOutbox).where(lte(mailOutbox.createdAt, sql`now() - interval '30 days'`));
}
