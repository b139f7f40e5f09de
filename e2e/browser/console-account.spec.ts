import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import jsQR from "jsqr";
import { Authenticator } from "@/testing/authenticator";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { type Account, apiToken, newAccount, signIn } from "./support/console";
import { cli } from "./support/outbox";

// The account page (profile rules, password, MFA enrolment and disabling) and announcements.
// TOTP codes come from otplib, as from a phone; the QR code is decoded from the image itself.

test("MFA enrolment: password again, recovery e-mail, QR, codes saved first, a code; then off again", async ({
  page,
}) => {
  const account = newAccount("enrol");
  await signIn(page, account);
  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Account", level: 1 })).toBeVisible();
  await expectNoSeriousA11yViolation(page);
  await page.getByRole("button", { name: "Turn on" }).click();
  const wizard = page.getByRole("dialog");

  await wizard.getByLabel("Your password").fill("not-it");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByText("The password is wrong.")).toBeVisible();
  await wizard.getByLabel("Your password").fill(account.password);
  await wizard.getByRole("button", { name: "Continue" }).click();

  await expect(wizard.getByRole("heading", { name: "Add a recovery e-mail" })).toBeVisible();
  await wizard.getByLabel("Recovery e-mail").fill(account.email);
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByText("Must differ from your e-mail.", { exact: true })).toBeVisible();
  await wizard.getByLabel("Recovery e-mail").fill(`backup-${account.email}`);
  await wizard.getByRole("button", { name: "Continue" }).click();

  // The QR image is the otpauth link the app would open.
  const qr = wizard.getByRole("img", { name: "QR code for TOTP setup" });
  await expect(qr).toBeVisible();
  const pixels = await qr.evaluate((image: HTMLImageElement) => {
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    context?.drawImage(image, 0, 0);
    const data = context?.getImageData(0, 0, canvas.width, canvas.height);
    return { width: canvas.width, height: canvas.height, data: Array.from(data?.data ?? []) };
  });
  const decoded = jsQR(new Uint8ClampedArray(pixels.data), pixels.width, pixels.height)?.data ?? "";
  await wizard.getByText("Can't scan it?").click();
  const link = await wizard
    .getByRole("link", { name: "Open in an authenticator app on this device" })
    .getAttribute("href");
  expect(decoded).toMatch(/^otpauth:\/\/totp\//);
  expect(decoded).toBe(link);
  const secret = (await wizard.getByTestId("mfa-secret").textContent()) ?? "";
  expect(new URL(decoded).searchParams.get("secret")).toBe(secret);
  await expectNoSeriousA11yViolation(page);
  await wizard.getByRole("button", { name: "Continue" }).click();

  // The codes: Continue waits for "I saved"; the download holds exactly the codes shown.
  const shown = await wizard.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").allTextContents();
  expect(shown.length).toBeGreaterThan(0);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    wizard.getByRole("button", { name: "Download" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`device-access-recovery-codes-${account.username}.txt`);
  expect(
    readFileSync((await download.path()) ?? "", "utf8")
      .trim()
      .split("\n"),
  ).toEqual(shown);
  await expect(wizard.getByRole("button", { name: "Continue" })).toBeDisabled();
  await wizard.getByLabel("I saved my recovery codes").check();
  await wizard.getByRole("button", { name: "Continue" }).click();

  const authenticator = new Authenticator(secret);
  await wizard.getByLabel("Digit 1 of 6").fill(await authenticator.codeAt(-20));
  await expect(wizard.getByText(/That code is wrong or has expired/)).toBeVisible();
  await wizard.getByLabel("Digit 1 of 6").fill(await authenticator.next());
  await expect(wizard.getByRole("heading", { name: "Two-factor authentication is on" })).toBeVisible();
  await wizard.getByRole("button", { name: "Finish" }).click();
  await expect(page.getByText("On", { exact: true })).toBeVisible();

  // The server agrees, and one of the codes shown works as a recovery code at login.
  const login = await page.request.post("/api/login", {
    data: { username: account.username, password: account.password },
  });
  expect(login.status()).toBe(401);
  expect(login.headers()["x-mfa-token"]).toBeTruthy();
  const recovered = await page.request.post("/api/user/mfa/recover", {
    data: { identifier: account.username, recovery_code: shown[0] },
  });
  expect(recovered.status()).toBe(200);

  // Off again, with a code from the app.
  await page.getByRole("button", { name: "Turn off" }).click();
  await page
    .getByRole("dialog")
    .getByLabel("Digit 1 of 6")
    .fill(await authenticator.next());
  await expect(page.getByText("Off", { exact: true })).toBeVisible();
});

test("profile and password: the rules are told in place", async ({ page }) => {
  const account = newAccount("profile");
  await signIn(page, account);
  await page.goto("/account");
  await page.getByLabel("Recovery e-mail").fill(account.email);
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByText("Must differ from your e-mail.", { exact: true })).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
  await page.getByLabel("Recovery e-mail").fill("");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByText("Profile saved")).toBeVisible();

  await page.getByLabel("Current password").fill("wrong-one");
  await page.getByLabel("New password", { exact: true }).fill("another-pass");
  await page.getByLabel("New password again").fill("another-pass");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("The current password is wrong.")).toBeVisible();
  await page.getByLabel("Current password").fill(account.password);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Password changed")).toBeVisible();
  expect(await apiToken(page.request, { username: account.username, password: "another-pass" })).toBeTruthy();

  // An owner of namespaces cannot delete the account, and is told which.
  await page.getByRole("button", { name: "Delete account" }).click();
  await page.getByRole("dialog").getByLabel("Username").fill(account.username);
  await page.getByRole("dialog").getByRole("button", { name: "Delete my account" }).click();
  await expect(page.getByRole("dialog").getByText(new RegExp(account.namespace))).toBeVisible();
});

test("announcements: the newest once per user, Markdown without HTML, and the history", async ({ page }) => {
  const first = newAccount("news");
  const second = newAccount("news");
  const file = path.join(tmpdir(), `announcement-${Date.now()}.md`);
  const title = `Maintenance ${Date.now()}`;
  writeFileSync(
    file,
    "On **Sunday**, see [the status page](https://status.example.com).\n\n<script>window.__injected = true</script>\n",
  );
  // Announcements are for every user of the service: this one goes away after the test.
  const uuid = cli("announcement", "create", title, file).trim();
  try {
    await showsOnce(page, first, second, title);
  } finally {
    cli("announcement", "delete", uuid);
  }
});

async function showsOnce(page: Page, first: Account, second: Account, title: string) {
  await signIn(page, first);
  await page.goto("/dashboard");
  const modal = page.getByRole("dialog", { name: title });
  await expect(modal).toBeVisible();
  await expect(modal.getByText("Sunday")).toBeVisible();
  await expect(modal.getByRole("link", { name: "the status page" })).toHaveAttribute("rel", "noopener noreferrer");
  await expect(modal.getByText("window.__injected")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined();
  await expectNoSeriousA11yViolation(page);
  await modal.getByRole("button", { name: "Got it" }).click();
  // After a reload the console has the newest announcement again (the answer awaited) and,
  // running in the browser ("Live"), decides not to show it.
  const answered = page.waitForResponse((response) => response.url().includes("/api/announcements/entries"));
  await page.reload();
  await answered;
  await expect(page.getByText("Live", { exact: true })).toBeVisible();
  await expect(page.getByRole("dialog", { name: title })).toHaveCount(0);

  // Another person in the same browser has not seen it.
  await signIn(page, second);
  await page.goto("/dashboard");
  await expect(page.getByRole("dialog", { name: title })).toBeVisible();
  await page.getByRole("dialog", { name: title }).getByRole("link", { name: "All announcements" }).click();
  await expect(page.getByRole("heading", { name: "Announcements", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  await expectNoSeriousA11yViolation(page);
}
