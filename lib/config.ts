import { isIP } from "node:net";
import { z } from "zod";
import { processSingleton } from "./process-state";

const integer = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

function isAddressOrRange(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

const ipOrCidrList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .refine((items) => items.every(isAddressOrRange), {
    message: "expected a comma-separated list of IP addresses or CIDR ranges",
  });

/** Every environment variable the service reads, with its default. Keep .env.example in step. */
export const configSchema = z.object({
  PORT: integer(8080, 0, 65535),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: z.url().optional(),
  // An idle keep-alive connection is closed after this. Behind a proxy that keeps connections to
  // the service, it must outlast the proxy's own idle timeout, or a request the proxy sends just
  // as the service closes the connection fails (docs/scaling.md).
  HTTP_KEEP_ALIVE_SECONDS: integer(5, 1, 3600),
  SSH_PORT: integer(2222, 0, 65535),
  SSH_LOGIN_GRACE_SECONDS: integer(30, 1, 600),
  SSH_MAX_UNAUTHENTICATED_PER_SOURCE: integer(32, 1, 100_000),
  // Agents' tunnels being set up at once (upgraded, not yet registered); more are asked to come back
  // later (429 with Retry-After), so that a fleet reconnecting after a restart does not time out.
  TUNNEL_HANDSHAKES_MAX: integer(64, 1, 100_000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "expected a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_SIZE: integer(10, 1, 1000),
  DATABASE_STATEMENT_TIMEOUT_SECONDS: integer(30, 1, 3600),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  JWT_TTL_SECONDS: integer(86400, 60, 30 * 86400),
  MAX_DEVICES: integer(-1, -1, 1_000_000),
  TRUSTED_PROXIES: ipOrCidrList,
  LOCKOUT_MAX_MINUTES: integer(1440, 1, 525_600),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  HEALTH_REPORT_SECONDS: integer(60, 1, 86_400),
  EDITION: z.enum(["cloud", "community"]).default("cloud"),
  DEVICE_OFFLINE_SECONDS: integer(120, 10, 86_400),
  DEVICE_REGISTRATIONS_PER_MINUTE: integer(60, 1, 1_000_000),
  // How long the audit trail keeps its rows; 0 keeps them for ever.
  AUDIT_RETENTION_DAYS: integer(365, 0, 36_500),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "expected an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().min(3).default("Device Access <noreply@localhost>"),
  // Unset: on when mail can leave the server (SMTP_URL), off with the embedded outbox.
  REQUIRE_EMAIL_CONFIRMATION: z.stringbool().optional(),
  MAIL_RETRY_SECONDS: integer(30, 1, 86_400),
  MAIL_MAX_ATTEMPTS: integer(8, 1, 100),
  MAIL_REQUESTS_PER_HOUR: integer(5, 1, 1_000_000),
  MAIL_REQUESTS_PER_HOUR_PER_SOURCE: integer(30, 1, 1_000_000),
  MFA_ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, "base64").length === 32, "expected 32 bytes in base64")
    .optional(),
  // Several instances on one PostgreSQL: the address other instances reach this one at, and the
  // secret they share (else each keeps its own in DATA_DIR/internal.secret).
  INSTANCE_URL: z.url().optional(),
  INTERNAL_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  // Container-engine connectors (docs/connectors.md): ranges a connector may dial although they are
  // loopback, private or link-local, and how often each enabled connector is synced.
  CONNECTOR_ALLOWED_CIDRS: ipOrCidrList,
  CONNECTOR_SYNC_SECONDS: integer(10, 1, 3600),
  // Webhooks (docs/webhooks.md): ranges a webhook may be sent to although they are loopback,
  // private or link-local; the first retry's delay (each next one 4 times longer, at most 6 h),
  // the attempts before a delivery fails, and how long a receiver has to answer.
  WEBHOOK_ALLOWED_CIDRS: ipOrCidrList,
  WEBHOOK_RETRY_SECONDS: integer(10, 1, 3600),
  WEBHOOK_MAX_ATTEMPTS: integer(8, 1, 20),
  WEBHOOK_TIMEOUT_SECONDS: integer(10, 1, 60),
  // Billing (cloud edition, docs/billing.md): off without STRIPE_SECRET_KEY. The API_* three point
  // the official client at a local Stripe-compatible server (stripe-mock, the test suite's own).
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_PRICE_ID: z.string().min(1).optional(),
  STRIPE_API_HOST: z.string().min(1).optional(),
  STRIPE_API_PORT: integer(443, 1, 65535),
  STRIPE_API_PROTOCOL: z.enum(["http", "https"]).default("https"),
  FREE_PLAN_DEVICES: integer(3, 0, 1_000_000),
});

export type Config = Omit<z.infer<typeof configSchema>, "REQUIRE_EMAIL_CONFIRMATION"> & {
  REQUIRE_EMAIL_CONFIRMATION: boolean;
};

export class ConfigError extends Error {}

// Their values never appear in messages.
const secretVariables = new Set([
  "JWT_SECRET",
  "DATABASE_URL",
  "SMTP_URL",
  "MFA_ENCRYPTION_KEY",
  "INTERNAL_SECRET",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
]);

/** Parses an environment; the message names every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const result = configSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const shown = secretVariables.has(name) ? "" : `=${JSON.stringify(env[name])}`;
      return `${name}${shown}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const { REQUIRE_EMAIL_CONFIRMATION, ...config } = result.data;
  return { ...config, REQUIRE_EMAIL_CONFIRMATION: REQUIRE_EMAIL_CONFIRMATION ?? config.SMTP_URL !== undefined };
}

/** The process's configuration, read from the environment once. */
export function getConfig(): Config {
  return processSingleton("config", () => parseConfig(process.env));
}

/** Billing is on in the cloud edition with a processor key (docs/billing.md). */
export const isBillingOn = (config: Config) => config.EDITION === "cloud" && config.STRIPE_SECRET_KEY !== undefined;

export function publicUrl(config: Config): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, "");
}
