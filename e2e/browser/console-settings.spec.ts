import { expect, type Page, test } from "@playwright/test";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, signIn } from "./support/console";

// API keys (created and shown once, working, then refused once deleted) and the namespace's
// settings (rename, recording, connection announcement, delete by typing the name).

const switcher = (page: Page) => page.getByRole("button", { name: /^Namespace: .*\. Switch namespace$/ });

test("an API key: created, shown once, works, renamed, deleted, then refused", async ({ page }) => {
  const owner = newAccount("keys");
  await signIn(page, owner);
  await page.goto("/team/api-keys");
  await expect(page.getByText("No API keys yet")).toBeVisible();

  await page.getByRole("button", { name: "Create API key" }).click();
  const form = page.getByRole("dialog", { name: "Create an API key" });
  // The API's own rule, in the browser: no spaces.
  await form.getByLabel("Name").fill("ci bot");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByText("No spaces or slashes.", { exact: true })).toBeVisible();
  await form.getByLabel("Name").fill("ci-bot");
  await form.getByLabel("Role").selectOption("operator");
  await form.getByLabel("Expires after").selectOption("30");
  await form.getByRole("button", { name: "Create key" }).click();

  const shown = page.getByRole("dialog", { name: "API key ci-bot created" });
  await expect(shown).toContainText("Copy this key now. You won't be able to see it again.");
  const key = (await shown.getByTestId("new-api-key").textContent()) ?? "";
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  await expect(shown.locator("code").nth(1)).toHaveText(new RegExp(`^curl -H "X-API-KEY: ${key}" http.*/api/devices$`));
  await expectNoSeriousA11yViolation(page);
  expect((await page.request.get("/api/devices", { headers: { "x-api-key": key } })).status()).toBe(200);
  await shown.getByRole("button", { name: "I copied it" }).click();
  await expect(page.getByText(key)).toHaveCount(0);

  const row = page.getByRole("row").filter({ hasText: "ci-bot" });
  await expect(row).toContainText("operator");
  await expect(row).toContainText("expires in 30 d");
  await expect(row).not.toContainText("Expires soon");

  await row.getByRole("button", { name: "Rename ci-bot" }).click();
  const rename = page.getByRole("dialog", { name: "Rename API key ci-bot" });
  await rename.getByLabel("New name").fill("deploy-bot");
  await rename.getByRole("button", { name: "Rename" }).click();
  const renamed = page.getByRole("row").filter({ hasText: "deploy-bot" });
  await expect(renamed).toBeVisible();

  await renamed.getByRole("button", { name: "Delete deploy-bot" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete API key deploy-bot?" });
  await confirm.getByRole("button", { name: "Delete deploy-bot" }).click();
  await expect(renamed).toHaveCount(0);
  expect((await page.request.get("/api/devices", { headers: { "x-api-key": key } })).status()).toBe(401);
});

test("settings: rename, recording, announcement preview, and delete by typing the name", async ({ page }) => {
  const owner = newAccount("settings");
  const token = await apiToken(page.request, owner);
  const spare = `spare-${owner.namespace}`;
  const created = await page.request.post("/api/namespaces", {
    headers: { authorization: `Bearer ${token}` },
    data: { name: spare },
  });
  expect(created.status()).toBe(200);
  await signIn(page, owner);
  await page.goto("/settings");
  if (!(await switcher(page).getAttribute("aria-label"))?.includes(`${owner.namespace}.`)) {
    await switcher(page).click();
    await page.getByRole("button", { name: new RegExp(`^${owner.namespace} `) }).click();
  }
  await expect(page.getByRole("button", { name: `Namespace: ${owner.namespace}. Switch namespace` })).toBeVisible();
  await expect(page.getByText(owner.tenant)).toBeVisible();
  await expect(page.getByText("0 accepted devices (no limit)")).toBeVisible();

  // Rename: the schema's rule first, then the switcher follows the new name.
  const renamed = `${owner.namespace}-new`;
  await page.getByLabel("Name", { exact: true }).fill("Bad Name");
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(page.getByText("3 to 30 lower-case letters, digits or inner hyphens.")).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(renamed);
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(page.getByRole("button", { name: `Namespace: ${renamed}. Switch namespace` })).toBeVisible();

  // Recording: on, as the API says.
  const recording = page.getByRole("switch", { name: /Record sessions/ });
  await expect(recording).not.toBeChecked();
  await recording.check();
  await expect(page.getByText("Session recording turned on")).toBeVisible();
  const security = await page.request.get("/api/users/security", { headers: { authorization: `Bearer ${token}` } });
  expect(await security.json()).toBe(true);

  // The announcement's preview is what ssh prints, before the device's prompt; saved, it stays.
  await page.getByLabel("Connection announcement").fill("Production: changes need a ticket.\nBe careful.");
  const preview = page.getByTestId("announcement-preview");
  await expect(preview).toContainText(`@${renamed}.web-1@`);
  await expect(preview).toContainText("Production: changes need a ticket.\nBe careful.\nroot@web-1:~$");
  await page.getByRole("button", { name: "Save announcement" }).click();
  await expect(page.getByText("Connection announcement saved")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Connection announcement")).toHaveValue(
    "Production: changes need a ticket.\nBe careful.",
  );
  await expect(page.getByRole("switch", { name: /Record sessions/ })).toBeChecked();
  await expectNoSeriousA11yViolation(page);

  // Delete: the button waits for the exact name; the console then opens the other namespace.
  await page.getByRole("button", { name: "Delete namespace" }).click();
  const dialog = page.getByRole("dialog", { name: `Delete namespace ${renamed}?` });
  await expect(dialog).toContainText("its session history and recordings");
  const confirm = dialog.getByRole("button", { name: `Delete ${renamed}` });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${renamed} to confirm`).fill(owner.namespace);
  await expect(confirm).toBeDisabled();
  await expectNoSeriousA11yViolation(page);
  await dialog.getByLabel(`Type ${renamed} to confirm`).fill(renamed);
  await confirm.click();
  await expect(page.getByRole("button", { name: `Namespace: ${spare}. Switch namespace` })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/);
  const gone = await page.request.get(`/api/namespaces/${owner.tenant}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(gone.status()).toBe(404);
});

for (const theme of ["light", "dark"] as const) {
  test(`axe: team, API keys and settings in the ${theme} theme, at 375 px too`, async ({ page, baseURL }) => {
    const owner = newAccount(`axe-team-${theme}`);
    const token = await apiToken(page.request, owner);
    for (const [name, expires_at] of [
      ["never-ends", -1],
      ["monthly", 30],
    ] as const) {
      const response = await page.request.post("/api/namespaces/api-key", {
        headers: { authorization: `Bearer ${token}` },
        data: { name, expires_at },
      });
      expect(response.status()).toBe(200);
    }
    await page.context().addCookies([{ name: "theme", value: theme, url: baseURL ?? "" }]);
    await signIn(page, owner);
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/team");
      await expect(page.getByText(owner.email).filter({ visible: true })).toBeVisible();
      await page.getByText("What can each role do?").click();
      await expectNoSeriousA11yViolation(page);
      await page.goto("/team/api-keys");
      // Soonest expiry first, keys that never expire last.
      const keys =
        width > 640
          ? page.getByRole("row").filter({ hasText: /monthly|never-ends/ })
          : page.getByRole("list", { name: "API keys, soonest expiry first" }).getByRole("listitem");
      await expect(keys).toHaveText([/^monthly/, /^never-ends/]);
      await expectNoSeriousA11yViolation(page);
      await page.goto("/settings");
      await expect(page.getByText(owner.tenant)).toBeVisible();
      await expectNoSeriousA11yViolation(page);
    }
  });
}
