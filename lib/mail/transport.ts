import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "../config";
import { processSingleton } from "../process-state";

/** The SMTP transport for SMTP_URL (one per process), or undefined for the embedded outbox. */
export function mailTransport(config: Pick<Config, "SMTP_URL">): Transporter | undefined {
  const url = config.SMTP_URL;
  if (!url) return undefined;
  return processSingleton("mail transport", () =>
    nodemailer.createTransport({
      url,
      // A dead mail server must not hold a delivery round for minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    }),
  );
}
