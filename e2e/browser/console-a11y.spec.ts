import { expect, test } from "@playwright/test";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { acceptDevice, apiToken, newAccount, registerDevice, signIn } from "./support/console";

// The main pages scanned by axe in both themes, the skip link, and a dark theme that is on the
// first response (no flash of the light one).

const dark = /(^|\s)dark(\s|$)/;

for (const theme of ["light", "dark"] as const) {
  test(`axe: login, dashboard, devices and a device page in the ${theme} theme`, async ({ page, baseURL }) => {
    const account = newAccount(`axe-${theme}`);
    const token = await apiToken(page.request, account);
    const uid = await registerDevice(page.request, account.tenant, "axe-board");
    await acceptDevice(page.request, token, uid);
    await registerDevice(page.request, account.tenant, "axe-waiting");
    await page.context().addCookies([{ name: "theme", value: theme, url: baseURL ?? "" }]);
    const html = page.locator("html");

    await page.goto("/login");
    await expect(page.getByRole("button", { name: "Log in" })).toBeVisible();
    if (theme === "dark") await expect(html).toHaveClass(dark);
    else await expect(html).not.toHaveClass(dark);
    await expectNoSeriousA11yViolation(page);

    await signIn(page, account);
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Review 1" })).toBeVisible();
    await expectNoSeriousA11yViolation(page);

    await page.goto("/devices");
    await expect(page.getByRole("link", { name: "axe-board", exact: true })).toBeVisible();
    await expectNoSeriousA11yViolation(page);
    await page.getByRole("tab", { name: /Pending/ }).click();
    await expect(page.getByRole("button", { name: "Accept axe-waiting" })).toBeVisible();
    await expectNoSeriousA11yViolation(page);

    await page.goto(`/devices/${uid}`);
    await expect(page.getByRole("heading", { name: "axe-board" })).toBeVisible();
    await expectNoSeriousA11yViolation(page);
  });
}

test("keyboard: the first Tab reaches the skip link, which moves focus to the content", async ({ page }) => {
  await signIn(page, newAccount("keys"));
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Connect your first device" })).toBeVisible();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
});

test("theme: Dark from the account menu is on the first response after a reload; System follows the system", async ({
  page,
}) => {
  await signIn(page, newAccount("theme"));
  await page.goto("/dashboard");
  const html = page.locator("html");
  await page.getByRole("button", { name: "Account menu" }).click();
  await page.locator("label").filter({ hasText: "Dark" }).click();
  await expect(html).toHaveClass(dark);

  const reloaded = await page.reload();
  expect(await reloaded?.text()).toMatch(/<html [^>]*class="dark"/);
  await expect(html).toHaveClass(dark);

  await page.getByRole("button", { name: "Account menu" }).click();
  await page.locator("label").filter({ hasText: "System" }).click();
  await page.emulateMedia({ colorScheme: "light" });
  await expect(html).not.toHaveClass(dark);
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(html).toHaveClass(dark);
  const afterReload = await page.reload();
  expect(await afterReload?.text()).not.toMatch(/<html [^>]*class="dark"/);
  await expect(html).toHaveClass(dark);
});
