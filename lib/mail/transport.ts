import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "../config";

const store = globalThis as typeof globalThis & { __dasMailTransport?: Transporter };

/** The SMTP transport for SMTP_URL (one per process), or undefined for the embedded outbox. */
export function mailTransport(config: Pick<Config, "SMTP_URL">): Transporter | undefined {
  if (!config.SMTP_URL) return undefined;
  store.__dasMailTransport ??= nodemailer.createTransport({
    url: config.SMTP_URL,
    // A dead mail server must not hold a delivery round for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return store.__dasMailTransport;
}
