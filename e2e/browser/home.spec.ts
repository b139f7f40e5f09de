import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { newAccount, signIn } from "./support/console";
import { cli } from "./support/outbox";

test("the service's address leads to the login page, and to the console once signed in", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("heading", { name: "Log in to your console" })).toBeVisible();

  await signIn(page, newAccount("home"));
  await page.goto("/");
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("the OpenAPI document stays where clients look for it", async ({ request }) => {
  const document = await (await request.get("/api/openapi.json")).json();
  expect(document.openapi).toBe("3.0.3");
  expect(document.paths["/api/login"].post.operationId).toBe("login");
});

test("a shared link's ?ns= opens that namespace; one the user is not a member of is refused", async ({ page }) => {
  const account = newAccount("link");
  const second = { name: `${account.namespace}-b`, tenant: randomUUID() };
  cli("namespace", "create", second.name, account.username, second.tenant);
  const stranger = newAccount("stranger");
  await signIn(page, account);

  await page.goto(`/devices?ns=${second.tenant}&status=pending`);
  await expect(page.getByRole("button", { name: `Namespace: ${second.name}. Switch namespace` })).toBeVisible();
  await expect(page).toHaveURL(/\/devices\?status=pending$/);

  await page.goto(`/dashboard?ns=${stranger.tenant}`);
  await expect(page.getByText("You are not a member of this namespace.")).toBeVisible();
  await expect(page.getByRole("button", { name: `Namespace: ${second.name}. Switch namespace` })).toBeVisible();
});
