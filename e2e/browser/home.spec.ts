import { expect, test } from "@playwright/test";
import { newAccount, signIn } from "./support/console";

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
