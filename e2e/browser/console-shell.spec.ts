import { expect, test } from "@playwright/test";
import { newAccount, registerDevice, signIn } from "./support/console";

// The shell's behaviour when the API goes away and comes back, and the terminal's way out for
// keyboard users.

test("the API out of reach: a banner, then the data again once it answers, without a reload", async ({ page }) => {
  const account = newAccount("banner");
  await registerDevice(page.request, account.tenant, "edge-1");
  await signIn(page, account);
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();

  await page.route("**/api/**", (route) => route.abort("connectionrefused"));
  await page.getByRole("link", { name: "Devices" }).first().click();
  await expect(page.getByText("The service cannot be reached. Reconnecting automatically…")).toBeVisible({
    timeout: 20_000,
  });

  await page.unroute("**/api/**");
  await expect(page.getByText("The service cannot be reached.")).toBeHidden({ timeout: 15_000 });
  await page.getByRole("tab", { name: /Pending/ }).click();
  await expect(page.getByRole("link", { name: "edge-1", exact: true })).toBeVisible();
});
