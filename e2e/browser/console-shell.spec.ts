import { expect, test } from "@playwright/test";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, registerDevice, signIn } from "./support/console";

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

test("Ctrl+K: the palette jumps to a section or a device by typing, from the keyboard", async ({ page }) => {
  const account = newAccount("palette");
  const token = await apiToken(page.request, account);
  const uid = await registerDevice(page.request, account.tenant, "lab-router");
  await page.request.patch(`/api/devices/${uid}/accept`, { headers: { authorization: `Bearer ${token}` } });
  await signIn(page, account);
  await page.goto("/dashboard");
  // "Live" shows once the page runs in the browser (the event stream is open): keys reach it then.
  await expect(page.getByText("Live", { exact: true })).toBeVisible();

  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  await expect(palette).toBeVisible();
  await page.keyboard.type("sess");
  await expect(palette.getByRole("option", { name: /Sessions/, selected: true })).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();

  await page.keyboard.press("Control+k");
  await page.keyboard.type("router");
  await expect(palette.getByRole("option", { name: /^lab-router/, selected: true })).toBeVisible();
  await expectNoSeriousA11yViolation(page);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "lab-router" })).toBeVisible();
  await expect(palette).toBeHidden();
});
