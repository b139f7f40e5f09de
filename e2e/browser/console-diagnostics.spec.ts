import { expect, test } from "@playwright/test";
import { newAccount, registerDevice, signIn } from "./support/console";

// The device page's Diagnostics: a pending device's checklist, its fix (Accept), and how it came online.

test("diagnostics: a pending device is a red check with Accept, then green; its registration is in the timeline", async ({
  page,
}) => {
  const account = newAccount("diag");
  const uid = await registerDevice(page.request, account.tenant, "diag-board");
  await signIn(page, account);
  await page.goto(`/devices/${uid}`);
  await expect(page.getByRole("heading", { name: "Diagnostics" })).toBeVisible();
  const checks = page.getByRole("list", { name: "Checks" });
  await expect(checks).toContainText("Not accepted (pending)");
  await expect(checks).toContainText("No refused logins");
  await expect(page.getByRole("list", { name: "Online and offline changes" })).toContainText("registered by its agent");
  await checks.getByRole("button", { name: "Accept" }).click();
  await expect(checks.getByText("Accepted", { exact: true })).toBeVisible();
  await expect(checks.getByRole("button", { name: "Accept" })).toHaveCount(0);
});
