import { expect, type Page, test } from "@playwright/test";
import { Authenticator } from "@/testing/authenticator";
import { type Account, apiToken, newAccount } from "./support/console";
import { cli } from "./support/outbox";

// The login of an account with MFA: the code step (six boxes, a pasted code submits itself), and
// a recovery code instead. Codes come from otplib, as from a phone's authenticator app.

async function withMfa(page: Page, account: Account) {
  const token = await apiToken(page.request, account);
  const headers = { authorization: `Bearer ${token}` };
  const updated = await page.request.patch("/api/users", {
    headers,
    data: { recovery_email: `backup-${account.email}` },
  });
  expect(updated.status()).toBe(200);
  const generated = await (await page.request.get("/api/user/mfa/generate", { headers })).json();
  const authenticator = new Authenticator(generated.secret);
  const enabled = await page.request.put("/api/user/mfa/enable", {
    headers,
    data: { code: await authenticator.next(), secret: generated.secret, recovery_codes: generated.recovery_codes },
  });
  expect(enabled.status()).toBe(200);
  return { authenticator, recoveryCodes: generated.recovery_codes as string[] };
}

async function passwordStep(page: Page, account: Account, next = "") {
  await page.goto(`/login${next}`);
  await page.getByLabel("Username or e-mail").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
}

test("the code step: a wrong code is refused, a pasted right code logs in and keeps ?next=", async ({ page }) => {
  const account = newAccount("mfa");
  const { authenticator } = await withMfa(page, account);
  await passwordStep(page, account, "?next=%2Fdevices%3Fstatus%3Drejected");
  await expect(page).toHaveURL(/\/login\/mfa\?next=/);

  const first = page.getByLabel("Digit 1 of 6");
  await first.click();
  await page.keyboard.type(await authenticator.codeAt(-10));
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid code.");

  await first.click();
  await page.evaluate(
    async (code) => {
      const data = new DataTransfer();
      data.setData("text/plain", code);
      document.activeElement?.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true }));
    },
    await authenticator.next(),
  );
  await expect(page).toHaveURL(/\/devices\?status=rejected$/);
  await expect(page.getByRole("tab", { name: /Rejected/, selected: true })).toBeVisible();
});

test("a recovery code logs in instead of the app's code", async ({ page }) => {
  const account = newAccount("mfarec");
  const { recoveryCodes } = await withMfa(page, account);
  await passwordStep(page, account);
  await page.getByRole("link", { name: "Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill("WRONGCODE1");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Invalid identifier or recovery code");
  // Typed as a person reads it: lower case with a blank.
  const code = recoveryCodes[0] ?? "";
  await page.getByLabel("Recovery code").fill(`${code.slice(0, 5).toLowerCase()} ${code.slice(5)}`);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

/** The reset code the newest mail to `email` carries. */
function mailedResetCode(email: string) {
  const line = cli("mail", "list")
    .split("\n")
    .find((entry) => entry.split(/\s+/).includes(email));
  return /_email_code\): (\S+)/.exec(cli("mail", "show", line?.split(/\s+/)[0] ?? ""))?.[1] ?? "";
}

test("phone and codes lost: two mailed codes turn MFA off and log in", async ({ page }) => {
  const account = newAccount("mfareset");
  await withMfa(page, account);
  await passwordStep(page, account, "?next=%2Faccount");
  await page.getByRole("link", { name: "Use a recovery code" }).click();
  await page.getByRole("link", { name: "Lost your recovery codes too? Turn MFA off by e-mail" }).click();
  await expect(page.getByRole("heading", { name: "Turn off two-factor authentication" })).toBeVisible();
  await page.getByRole("button", { name: "Send the codes" }).click();
  await expect(page.getByLabel("Code from your e-mail")).toBeVisible();
  const main = mailedResetCode(account.email);
  const recovery = mailedResetCode(`backup-${account.email}`);
  expect(main).not.toBe("");
  expect(recovery).not.toBe(main);

  // One right code alone is not enough.
  await page.getByLabel("Code from your e-mail").fill(main);
  await page.getByLabel("Code from your recovery e-mail").fill("WRONGCODE1");
  await page.getByRole("button", { name: "Turn off MFA and log in" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Invalid or expired reset codes");
  await page.getByLabel("Code from your recovery e-mail").fill(recovery);
  await page.getByRole("button", { name: "Turn off MFA and log in" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByText("Off", { exact: true })).toBeVisible();
});
