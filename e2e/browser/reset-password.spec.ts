import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { expect, test } from "@playwright/test";

const root = path.resolve(import.meta.dirname, "../..");

/** `npm run cli -- ARGS` on the browser-test server's data (through the running server). */
const cli = (...args: string[]) =>
  execFileSync(path.join(root, "node_modules/.bin/tsx"), ["lib/cli/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: process.env.BROWSER_DATA_DIR, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });

test("the password-recovery link opens a form that sets the new password once", async ({ page, request }) => {
  const username = `b${randomBytes(5).toString("hex")}`;
  const email = `${username}@example.com`;
  const registered = await request.post("/api/register", {
    data: { name: "Browser Test", username, email, password: "old-secret" },
  });
  expect(registered.status()).toBe(200);
  expect((await request.post("/api/user/recover_password", { data: { username } })).status()).toBe(200);

  // The embedded outbox holds the mail; its link is the page's.
  const line = cli("mail", "list")
    .split("\n")
    .find((entry) => entry.includes(email));
  const shown = cli("mail", "show", line?.split(/\s+/)[0] ?? "");
  const link = new URL(shown.split(/\s+/).find((word) => word.includes("/reset-password?")) ?? "");

  await page.goto(`${link.pathname}${link.search}`);
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

  // The link works once.
  await page.goto(`${link.pathname}${link.search}`);
  await page.getByLabel("New password").fill("third-secret");
  await page.getByLabel("The same again").fill("third-secret");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "invalid or expired" })).toBeVisible();
});

test("an incomplete link says so", async ({ page }) => {
  await page.goto("/reset-password?uid=only");
  await expect(page.getByText("This link is incomplete")).toBeVisible();
});
