import { expect, test } from "@playwright/test";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, signIn } from "./support/console";
import { cli } from "./support/outbox";

// The activity page: changes made through the API appear with their actor, a filter lives in the
// URL, a row opens its details, and an observer is told the page is for administrators.

test("activity: the namespace's changes, filtered by action, a row's details; observers are told who may read it", async ({
  page,
  browser,
}) => {
  const account = newAccount("activity");
  const observer = newAccount("reader");
  cli("namespace", "member", "add", observer.username, account.namespace, "observer");
  const token = await apiToken(page.request, account);
  const auth = { authorization: `Bearer ${token}` };
  const created = await page.request.post("/api/firewall/rules", {
    headers: auth,
    data: {
      action: "deny",
      active: true,
      priority: 3,
      source_ip: "^10\\.",
      username: "^root$",
      filter: { tags: ["prod"] },
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const ruleId = (await created.json()).id as string;

  await signIn(page, account);
  await page.goto(`/activity?ns=${account.tenant}`);
  await expect(page.getByRole("heading", { name: "Activity" })).toBeVisible();
  const table = page.getByRole("table", { name: "Activity" });
  await expect(table.getByRole("row", { name: /Firewall rule created/ })).toContainText(account.username);
  await expect(table.getByRole("row", { name: /Firewall rule created/ })).toContainText(`Rule #${ruleId}`);

  await page.getByRole("combobox", { name: "Filter by action" }).selectOption({ label: "Firewall rules" });
  await expect(page).toHaveURL(/action=firewall_rule\./);
  await expect(table.getByRole("row")).toHaveCount(2);
  await table
    .getByRole("button", { name: /^Details/ })
    .first()
    .click();
  const drawer = page.getByRole("dialog", { name: "Firewall rule created" });
  await expect(drawer).toContainText('"source_ip": "^10\\\\."');
  await expect(drawer).toContainText("firewall_rule.create");
  await expectNoSeriousA11yViolation(page);
  await drawer.getByRole("button", { name: "Close" }).click();
  await expect(drawer).toBeHidden();

  const reading = await browser.newContext();
  try {
    const observerPage = await reading.newPage();
    await signIn(observerPage, observer);
    await observerPage.goto(`/activity?ns=${account.tenant}`);
    await expect(observerPage.getByRole("main")).toContainText("for administrators and its owner");
    await expect(observerPage.getByRole("table", { name: "Activity" })).toHaveCount(0);
  } finally {
    await reading.close();
  }
});
