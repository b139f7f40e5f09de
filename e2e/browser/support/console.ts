import { randomBytes, randomUUID } from "node:crypto";
import { type APIRequestContext, expect, type Page } from "@playwright/test";
import { cli } from "./outbox";

export type Account = { username: string; password: string; email: string; namespace: string; tenant: string };

/** A confirmed account that owns a namespace of its own, made with the admin CLI. */
export function newAccount(prefix = "user"): Account {
  const suffix = randomBytes(3).toString("hex");
  const username = `${prefix}-${suffix}`;
  const account = {
    username,
    password: "console-pass",
    email: `${username}@example.com`,
    namespace: `ns-${suffix}`,
    tenant: randomUUID(),
  };
  cli("user", "create", account.username, account.password, account.email);
  cli("namespace", "create", account.namespace, account.username, account.tenant);
  return account;
}

/**
 * Signs the page's browser context in through the console's own sign-in endpoint (Auth.js), as
 * the login form does; only the sign-in specs drive the form itself.
 */
export async function signIn(page: Page, account: Pick<Account, "username" | "password">) {
  const { csrfToken } = await (await page.request.get("/auth/csrf")).json();
  const response = await page.request.post("/auth/callback/credentials", {
    form: { csrfToken, username: account.username, password: account.password, callbackUrl: "/dashboard" },
    maxRedirects: 0,
  });
  expect(response.status(), await response.text()).toBe(302);
  const cookies = await page.context().cookies();
  expect(cookies.some((cookie) => cookie.name === "das.session")).toBe(true);
}

/** An API token of the account, for arranging what a test needs through the API. */
export async function apiToken(request: APIRequestContext, account: Pick<Account, "username" | "password">) {
  const login = await request.post("/api/login", { data: { username: account.username, password: account.password } });
  expect(login.status()).toBe(200);
  return (await login.json()).token as string;
}

/** A pending device registered as an agent's first call does (unsigned: allowed while pending). */
export async function registerDevice(request: APIRequestContext, tenant: string, hostname: string) {
  const { generateKeyPairSync } = await import("node:crypto");
  const { publicKey } = generateKeyPairSync("ed25519");
  const response = await request.post("/api/devices/auth", {
    data: {
      tenant_id: tenant,
      hostname,
      identity: { mac: [...randomBytes(6)].map((byte) => byte.toString(16).padStart(2, "0")).join(":") },
      public_key: publicKey.export({ type: "spki", format: "pem" }).toString(),
      info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "test", arch: "x86_64", platform: "native" },
    },
  });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()).uid as string;
}

/** The text of the open terminal (xterm draws on a canvas; the console keeps a reader for tests). */
export const terminalText = (page: Page) =>
  page.evaluate(() =>
    Object.values(window.__terminals ?? {})
      .map((read) => read())
      .join("\n"),
  );

/** Accepts a pending device with an API token of its namespace. */
export async function acceptDevice(request: APIRequestContext, token: string, uid: string) {
  const response = await request.patch(`/api/devices/${uid}/accept`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status(), await response.text()).toBe(200);
}
