import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { mailedLink } from "./support/outbox";

test("the activation link activates the account once and says so", async ({ page, request }) => {
  const username = `v${randomBytes(5).toString("hex")}`;
  const email = `${username}@example.com`;
  const account = { name: "Browser Test", username, email, password: "secret-pass" };
  expect((await request.post("/api/register", { data: account })).status()).toBe(200);
  expect((await request.post("/api/login", { data: { username, password: account.password } })).status()).toBe(403);

  const link = mailedLink(email, "/validation-account");
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Activate your account" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Your account is activated" })).toBeVisible();
  expect((await request.post("/api/login", { data: { username, password: account.password } })).status()).toBe(200);

  await page.goto(link);
  await expect(page.getByRole("alert").filter({ hasText: "invalid or expired" })).toBeVisible();
});

test("an incomplete activation link says so", async ({ page }) => {
  await page.goto("/validation-account?email=someone%40example.com");
  await expect(page.getByText("This link is incomplete")).toBeVisible();
});
