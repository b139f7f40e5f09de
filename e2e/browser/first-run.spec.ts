import { expect, type Page, test } from "@playwright/test";
import { cli } from "./support/outbox";

// The browser-test server starts empty; this spec's project runs before every other one
// (playwright.config.ts), so it sees the service before it has an account.

async function fillAccount(page: Page) {
  await page.getByLabel(/^Your name/).fill("First Admin");
  await page.getByLabel("Username", { exact: true }).fill("first-admin");
  await page.getByLabel("E-mail", { exact: true }).fill("first-admin@example.com");
  await page.getByLabel(/^Password/).fill("first-pass");
  await page.getByLabel("The same again").fill("first-pass");
  await page.getByRole("button", { name: "Create the account" }).click();
}

test("the setup link creates the first account and its namespace once; a wrong sign creates nothing", async ({
  page,
  request,
}) => {
  expect((await (await request.get("/info")).json()).setup).toBe(false);

  // The console's first screen on an empty service tells how to make the first account.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Welcome: this service has no account yet" })).toBeVisible();
  await expect(page.getByText("npm run cli -- setup link")).toBeVisible();

  // Without the link's sign the page asks for it.
  await page.goto("/setup");
  await page.getByLabel(/^Sign/).fill("not-the-sign");
  await fillAccount(page);
  await expect(page.getByRole("alert").filter({ hasText: "wrong sign" })).toBeVisible();
  expect((await (await request.get("/info")).json()).setup).toBe(false);

  const link = new URL(cli("setup", "link").trim());
  expect(link.pathname).toBe("/setup");
  await page.goto(`${link.pathname}${link.search}`);
  await expect(page.getByRole("heading", { name: "Set up the service" })).toBeVisible();
  await expect(page.getByLabel(/^Sign/)).toHaveCount(0);
  await fillAccount(page);
  await expect(page.getByRole("status").filter({ hasText: "namespace 'first-admin' created" })).toBeVisible();

  expect((await (await request.get("/info")).json()).setup).toBe(true);
  const login = await request.post("/api/login", { data: { username: "first-admin", password: "first-pass" } });
  expect(login.status()).toBe(200);
  await page.goto(`${link.pathname}${link.search}`);
  await expect(page.getByText("This service is set up already")).toBeVisible();
});
