import { describe, expect, it } from "vitest";
import { ConfigError, isBillingOn, parseConfig, publicUrl } from "./config";

/** The ConfigError message parseConfig throws for `env`, or a failure when it does not throw. */
function configError(env: Record<string, string | undefined>): string {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe("parseConfig", () => {
  it("gives every default for an empty environment", () => {
    expect(parseConfig({})).toEqual({
      PORT: 8080,
      HOST: "0.0.0.0",
      HTTP_KEEP_ALIVE_SECONDS: 5,
      SSH_PORT: 2222,
      SSH_LOGIN_GRACE_SECONDS: 30,
      SSH_MAX_UNAUTHENTICATED_PER_SOURCE: 32,
      TUNNEL_HANDSHAKES_MAX: 64,
      DATA_DIR: "./data",
      DATABASE_POOL_SIZE: 10,
      DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
      JWT_TTL_SECONDS: 86400,
      MAX_DEVICES: -1,
      TRUSTED_PROXIES: [],
      LOCKOUT_MAX_MINUTES: 1440,
      LOG_LEVEL: "info",
      HEALTH_REPORT_SECONDS: 60,
      EDITION: "cloud",
      DEVICE_OFFLINE_SECONDS: 120,
      DEVICE_REGISTRATIONS_PER_MINUTE: 60,
      AUDIT_RETENTION_DAYS: 365,
      MAIL_FROM: "Device Access <noreply@localhost>",
      REQUIRE_EMAIL_CONFIRMATION: false,
      MAIL_RETRY_SECONDS: 30,
      MAIL_MAX_ATTEMPTS: 8,
      MAIL_REQUESTS_PER_HOUR: 5,
      MAIL_REQUESTS_PER_HOUR_PER_SOURCE: 30,
      CONNECTOR_ALLOWED_CIDRS: [],
      CONNECTOR_SYNC_SECONDS: 10,
      WEBHOOK_ALLOWED_CIDRS: [],
      WEBHOOK_RETRY_SECONDS: 10,
      WEBHOOK_MAX_ATTEMPTS: 8,
      WEBHOOK_TIMEOUT_SECONDS: 10,
      STRIPE_API_PORT: 443,
      STRIPE_API_PROTOCOL: "https",
      FREE_PLAN_DEVICES: 3,
    });
  });

  it("turns billing on in the cloud edition with a processor key", () => {
    expect(isBillingOn(parseConfig({ STRIPE_SECRET_KEY: "sk_test_x" }))).toBe(true);
    expect(isBillingOn(parseConfig({ STRIPE_SECRET_KEY: "sk_test_x", EDITION: "community" }))).toBe(false);
    expect(isBillingOn(parseConfig({}))).toBe(false);
    expect(configError({ STRIPE_API_PROTOCOL: "ftp" })).toMatch(/STRIPE_API_PROTOCOL/);
  });

  it("requires e-mail confirmation by default only when mail can leave the server", () => {
    expect(parseConfig({ SMTP_URL: "smtp://mail.example.org:25" }).REQUIRE_EMAIL_CONFIRMATION).toBe(true);
    expect(
      parseConfig({ SMTP_URL: "smtp://m:25", REQUIRE_EMAIL_CONFIRMATION: "false" }).REQUIRE_EMAIL_CONFIRMATION,
    ).toBe(false);
    expect(parseConfig({ REQUIRE_EMAIL_CONFIRMATION: "true" }).REQUIRE_EMAIL_CONFIRMATION).toBe(true);
    expect(configError({ REQUIRE_EMAIL_CONFIRMATION: "maybe" })).toMatch(/REQUIRE_EMAIL_CONFIRMATION/);
  });

  it("never shows the SMTP URL (it may hold a password) or the MFA key in messages", () => {
    const message = configError({ SMTP_URL: "http://user:hunter2@mail", MFA_ENCRYPTION_KEY: "c2hvcnQ=" });
    expect(message).toMatch(/SMTP_URL/);
    expect(message).toMatch(/MFA_ENCRYPTION_KEY/);
    expect(message).not.toMatch(/hunter2|c2hvcnQ/);
  });

  it("treats an empty value as unset", () => {
    const config = parseConfig({ PORT: "", DATABASE_URL: "", JWT_SECRET: "", PUBLIC_URL: "", LOG_LEVEL: "" });
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.JWT_SECRET).toBeUndefined();
    expect(config.PUBLIC_URL).toBeUndefined();
    expect(config.LOG_LEVEL).toBe("info");
  });

  it("reads good values, numbers coerced", () => {
    const config = parseConfig({
      PORT: "3000",
      HOST: "127.0.0.1",
      PUBLIC_URL: "https://devices.example.org",
      SSH_PORT: "22",
      DATA_DIR: "/var/lib/das",
      DATABASE_URL: "postgresql://das:pw@db:5432/das",
      DATABASE_POOL_SIZE: "25",
      JWT_SECRET: "x".repeat(32),
      JWT_TTL_SECONDS: "3600",
      MAX_DEVICES: "3",
      LOCKOUT_MAX_MINUTES: "60",
      LOG_LEVEL: "debug",
    });
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: "127.0.0.1",
      PUBLIC_URL: "https://devices.example.org",
      SSH_PORT: 22,
      DATA_DIR: "/var/lib/das",
      DATABASE_URL: "postgresql://das:pw@db:5432/das",
      DATABASE_POOL_SIZE: 25,
      JWT_SECRET: "x".repeat(32),
      JWT_TTL_SECONDS: 3600,
      MAX_DEVICES: 3,
      LOCKOUT_MAX_MINUTES: 60,
      LOG_LEVEL: "debug",
    });
    expect(parseConfig({ DATABASE_URL: "postgres://localhost/das" }).DATABASE_URL).toBe("postgres://localhost/das");
    expect(parseConfig({ PORT: "0", MAX_DEVICES: "-1" })).toMatchObject({ PORT: 0, MAX_DEVICES: -1 });
  });

  it("ignores variables it does not know", () => {
    expect(parseConfig({ PATH: "/usr/bin", HOME: "/root" }).PORT).toBe(8080);
  });

  const badValues: [string, string][] = [
    ["PORT", "abc"],
    ["PORT", "65536"],
    ["PORT", "-1"],
    ["PORT", "80.5"],
    ["SSH_PORT", "70000"],
    ["SSH_PORT", "ssh"],
    ["PUBLIC_URL", "not a url"],
    ["DATABASE_URL", "mysql://x"],
    ["DATABASE_URL", "localhost:5432"],
    ["DATABASE_POOL_SIZE", "0"],
    ["DATABASE_POOL_SIZE", "1001"],
    ["JWT_SECRET", "short"],
    ["JWT_TTL_SECONDS", "59"],
    ["JWT_TTL_SECONDS", String(31 * 86400)],
    ["MAX_DEVICES", "-2"],
    ["MAX_DEVICES", "many"],
    ["LOCKOUT_MAX_MINUTES", "0"],
    ["LOG_LEVEL", "verbose"],
    ["TRUSTED_PROXIES", "10.0.0.1,proxy.example.org"],
  ];

  it.each(badValues)("refuses %s=%s and names the variable", (name, value) => {
    const message = configError({ [name]: value });
    expect(message).toMatch(/^invalid configuration:/);
    expect(message).toMatch(new RegExp(`^  ${name}[=:]`, "m"));
    // Only the bad variable is named.
    for (const [other] of badValues) {
      if (other !== name) expect(message).not.toMatch(new RegExp(`^  ${other}[=:]`, "m"));
    }
  });

  it("names every bad variable at once, one per line", () => {
    const message = configError({ PORT: "abc", SSH_PORT: "70000", DATABASE_URL: "mysql://x", LOG_LEVEL: "loud" });
    const lines = message.split("\n").slice(1);
    expect(lines).toHaveLength(4);
    for (const name of ["PORT", "SSH_PORT", "DATABASE_URL", "LOG_LEVEL"]) {
      // Secret variables are named without their value.
      const prefix = name === "DATABASE_URL" ? `${name}:` : `${name}=`;
      expect(lines.some((line) => line.trim().startsWith(prefix))).toBe(true);
    }
    expect(message).toContain("expected a postgres:// or postgresql:// URL");
  });

  it("does not repeat secret values in the message", () => {
    // The message goes to stderr and from there into logs: a secret must not be copied there.
    const secret = "hunter2-too-short";
    expect(configError({ JWT_SECRET: secret })).toContain("JWT_SECRET");
    expect(configError({ JWT_SECRET: secret })).not.toContain(secret);
    const message = configError({ DATABASE_URL: "mysql://app:s3cr3t-pw@db.internal/app" });
    expect(message).toContain("DATABASE_URL");
    expect(message).not.toContain("s3cr3t-pw");
  });

  describe("TRUSTED_PROXIES", () => {
    it.each([
      ["", []],
      ["10.0.0.1", ["10.0.0.1"]],
      ["10.0.0.0/8, 192.168.1.7 ,::1", ["10.0.0.0/8", "192.168.1.7", "::1"]],
      ["fd00::/8,,172.16.0.0/12,", ["fd00::/8", "172.16.0.0/12"]],
    ])("reads %j as %j", (value, expected) => {
      expect(parseConfig({ TRUSTED_PROXIES: value }).TRUSTED_PROXIES).toEqual(expected);
    });

    it.each(["proxy", "10.0.0.1;10.0.0.2", "10.0.0.0/8/8", "10.0.0.0/abc"])("refuses %j", (value) => {
      expect(configError({ TRUSTED_PROXIES: value })).toContain("TRUSTED_PROXIES=");
    });

    // lib/http/source.ts hands each entry to net.BlockList on the first request with X-Real-IP;
    // an entry BlockList refuses makes that request fail, so the start must refuse it instead.
    it.each(["10.0.0.0/33", "300.1.1.1", "cafe", "::1/129"])("refuses %j, which net.BlockList cannot take", (value) => {
      expect(configError({ TRUSTED_PROXIES: value })).toContain("TRUSTED_PROXIES=");
    });
  });
});

describe("publicUrl", () => {
  it("is PUBLIC_URL without a trailing slash, else localhost on PORT", () => {
    expect(publicUrl(parseConfig({ PUBLIC_URL: "https://devices.example.org/" }))).toBe("https://devices.example.org");
    expect(publicUrl(parseConfig({ PORT: "3000" }))).toBe("http://localhost:3000");
  });
});
