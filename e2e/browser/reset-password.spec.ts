import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { mailedLink } from "./support/outbox";

test("the password-recovery link opens a form that sets the new password once", async ({ page, request }) => {
  const username = `b${randomBytes(5).toString("hex")}`;
  const email = `${username}@example.com`;
  const registered = await request.post("/api/register", {
    data: { name: "Browser Test", username, email, password: "old-secret" },
  });
  expect(registered.status()).toBe(200);
  // The browser-test server asks for e-mail confirmation: activate through the mailed link's query.
  const activation = mailedLink(email, "/validation-account");
  expect((await request.get(activation.replace("/validation-account", "/api/user/validation_account"))).status()).toBe(
    200,
  );
  expect((await request.post("/api/user/recover_password", { data: { username } })).status()).toBe(200);

  const link = mailedLink(email, "/update-password");
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await page.getByLabel("New password").fill("new-secret");
  await page.getByLabel("The same again").fill("other-secret");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The two passwords differ." })).toBeVisible();

  await page.getByLabel("The same again").fill("new-secret");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByText("Your password is changed")).toBeVisible();
  const login = await request.post("/api/login", { data: { username, password: "new-secret" } });
  expect(login.status()).toBe(200);

  // The link works once; the older route takes it too (`uid` for `id`).
  await page.goto(link.replace("/update-password?id=", "/reset-password?uid="));
  await page.getByLabel("New password").fill("third-secret");
  await page.getByLabel("The same again").fill("third-secret");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "invalid or expired" })).toBeVisible();
});

test("an incomplete link says so", async ({ page }) => {
  await page.goto("/update-password?id=only");
  await expect(page.getByText("This link is incomplete")).toBeVisible();
  await page.goto("/reset-password?uid=only");
  await expect(page.getByText("This link is incomplete")).toBeVisible();
});
