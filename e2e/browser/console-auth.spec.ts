import { expect, test } from "@playwright/test";
import { newAccount } from "./support/console";
import { mailedLink } from "./support/outbox";

// The sign-in pages, driven as a person does: sign-up and its e-mail, log in with `?next=`,
// wrong passwords and the lockout, the password reset, log out.

test("sign up, confirm the e-mail, log in and land on the first step", async ({ page }) => {
  const name = `new-${Date.now().toString(36)}`;
  await page.goto("/signup");
  await page.getByLabel("Name", { exact: true }).fill("New Person");
  await page.getByLabel("Username", { exact: true }).fill(name);
  await page.getByLabel("E-mail").fill(`${name}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByLabel("Confirm password").fill("other");
  await page.getByRole("button", { name: "Create account" }).click();
  // The API's own schema, in the browser: nothing is sent.
  await expect(page.getByText("The two passwords differ.")).toBeVisible();

  await page.getByLabel("Password", { exact: true }).fill("new-person-pass");
  await page.getByLabel("Confirm password").fill("new-person-pass");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
  await expect(page.getByLabel("Username or e-mail")).toHaveValue(name);

  await page.goto(mailedLink(`${name}@example.com`, "/validation-account"));
  await expect(page.getByText("Your account is activated")).toBeVisible();
  await page.getByRole("link", { name: "Log in" }).click();
  await page.getByLabel("Username or e-mail").fill(name);
  await page.getByLabel("Password").fill("new-person-pass");
  await page.getByRole("button", { name: "Log in" }).click();
  // A new account has no namespace yet: the console's first step is to make one.
  await expect(page.getByRole("heading", { name: "Create your first namespace" })).toBeVisible();
  await page.getByLabel("New namespace").fill(`home-${name.slice(4)}`);
  await page.getByRole("button", { name: "Create namespace" }).click();
  await expect(page.getByRole("heading", { name: "Connect your first device" })).toBeVisible();
});

test("a page asked for without a session comes back after the login", async ({ page }) => {
  const account = newAccount("next");
  await page.goto("/devices?status=pending");
  await expect(page).toHaveURL(/\/login\?next=%2Fdevices%3Fstatus%3Dpending$/);
  await page.getByLabel("Username or e-mail").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/devices\?status=pending$/);
  await expect(page.getByRole("tab", { name: /Pending/, selected: true })).toBeVisible();
});

test("a wrong password is an inline error; the third locks with a countdown", async ({ page }) => {
  const account = newAccount("locked");
  await page.goto("/login");
  const username = page.getByLabel("Username or e-mail");
  const password = page.getByLabel("Password");
  await username.fill(account.username);
  await password.fill("wrong-password");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Invalid username or password.");
  for (let attempt = 2; attempt <= 3; attempt += 1) {
    await password.fill("wrong-password");
    // The form posts to its server action at the page's own address.
    const answered = page.waitForResponse(
      (response) => response.request().method() === "POST" && response.url().endsWith("/login"),
    );
    await page.getByRole("button", { name: "Log in" }).click();
    await answered;
  }
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Try again in");
  await expect(page.getByRole("button", { name: "Log in" })).toBeDisabled();
  const first = await page.getByRole("main").getByRole("alert").locator("time").textContent();
  await expect(page.getByRole("main").getByRole("alert").locator("time")).not.toHaveText(first ?? "");
});

test("forgot password: the mailed link sets a new one that logs in", async ({ page }) => {
  const account = newAccount("forgot");
  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  // The login page has a field of the same name: fill the new page's.
  await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
  await page.getByLabel("Username or e-mail").fill(account.email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(page.getByText("a reset link is on its way")).toBeVisible();

  await page.goto(mailedLink(account.email, "/update-password"));
  await page.getByLabel(/^New password/).fill("brand-new-pass");
  await page.getByLabel("The same again").fill("brand-new-pass");
  await page.getByRole("button", { name: "Set the password" }).click();
  await expect(page.getByText("Your password is changed")).toBeVisible();

  await page.goto("/login");
  await page.getByLabel("Username or e-mail").fill(account.username);
  await page.getByLabel("Password").fill("brand-new-pass");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Connect your first device" })).toBeVisible();
});

test("log out ends the session: the console asks for a login again", async ({ page }) => {
  const account = newAccount("logout");
  await page.goto("/login");
  await page.getByLabel("Username or e-mail").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Connect your first device" })).toBeVisible();
  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect((await page.context().cookies()).some((cookie) => cookie.name === "das.session")).toBe(false);
  await page.goBack();
  await expect(page).toHaveURL(/\/login/);
  expect(await (await page.request.get("/api/stats")).status()).toBe(401);
});
