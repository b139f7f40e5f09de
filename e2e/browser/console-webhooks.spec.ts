import { expect, test } from "@playwright/test";
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from "@/testing/webhook-receiver";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { newAccount, signIn } from "./support/console";
import { cli } from "./support/outbox";

// Webhooks against a real receiver of the spec's own on the loopback (the server may send there,
// and tries a failed delivery again after 1 s: playwright.config.ts): the form's checks, the
// secret shown once and checked against what the receiver got, a test event delivered, a refused
// one retried until delivered, a new secret, delete; an observer is told who manages webhooks.

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

type TestEvent = { type: string; data: { webhook_id: string } };

test("webhooks: checked form, secret once, test event delivered and verified, a refused one retried, deleted", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const account = newAccount("hooks");
  const url = `${receiver.url}/${account.namespace}`;
  const requests = () => receiver.ofType("webhook.test").filter((hook) => hook.path === `/${account.namespace}`);
  const request = (index: number) => {
    const hook = requests()[index];
    if (!hook) throw new Error(`the receiver got no test event #${index + 1}`);
    return hook;
  };
  await signIn(page, account);
  await page.goto("/settings");
  await page.getByRole("link", { name: /^Webhooks: send/ }).click();
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await expect(page.getByText("No webhook yet.")).toBeVisible();

  await page.getByRole("button", { name: "Add webhook" }).click();
  const form = page.getByRole("dialog", { name: "Add webhook" });
  await form.getByLabel("URL").fill("ftp://example.org/hook");
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(form.getByText("Expected an http or https URL.")).toBeVisible();
  await expect(form.getByText("Choose at least one event type.")).toBeVisible();
  await expect(form.getByLabel("URL")).toBeFocused();
  await form.getByLabel("URL").fill(url);
  await form.getByRole("checkbox", { name: /^device\.online/ }).check();
  await form.getByRole("checkbox", { name: /^login\.refused/ }).check();
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(form).toBeHidden();

  const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
  expect(secret).toMatch(/^whsec_/);
  await expect(page.getByText("new Webhook(process.env.WEBHOOK_SECRET)")).toBeVisible();
  await expectNoSeriousA11yViolation(page);
  await page.getByRole("button", { name: "I copied it" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

  const row = page.getByRole("row", { name: new RegExp(url.replaceAll(".", "\\.")) });
  await expect(row).toContainText("device.online");
  await expect(row).toContainText("None yet");
  // The switch flips at once and stays as the server saved it.
  await row.getByRole("switch").click();
  await expect(row.getByRole("switch")).not.toBeChecked();
  await expect(page.getByText(`${url} turned off`)).toBeVisible();
  await row.getByRole("switch").click();
  await expect(row.getByRole("switch")).toBeChecked();

  await row.getByRole("link", { name: url }).click();
  await expect(page.getByRole("heading", { name: url, level: 1 })).toBeVisible();
  await expect(page.getByText("Nothing sent yet.")).toBeVisible();
  await page.getByRole("button", { name: "Send test event" }).click();
  const table = page.getByRole("table", { name: "Deliveries" });
  const newest = table.getByRole("row").nth(1);
  await expect(newest).toContainText("webhook.test");
  await expect(newest).toContainText("Delivered · 200");
  // What the receiver got is signed with the secret the page showed.
  expect(requests()).toHaveLength(1);
  const delivered = verifyHook(secret, request(0)) as TestEvent;
  expect(delivered.type).toBe("webhook.test");

  // Refused twice, then answered: the row says so while the service tries again.
  receiver.answerNext({ status: 500, body: "busy" }, { status: 500, body: "busy" });
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(newest).toContainText("Pending · 500", { timeout: 15_000 });
  await expect(newest).toContainText(/in \d+ s|due now/);
  await expect(newest).toContainText("Delivered · 200", { timeout: 20_000 });
  await expect(newest.getByRole("cell").nth(3)).toHaveText("3");
  const retried = requests().slice(1);
  expect(retried).toHaveLength(3);
  expect(new Set(retried.map((hook) => hook.headers["webhook-id"])).size).toBe(1);

  await newest.getByRole("button", { name: /^Details/ }).click();
  const drawer = page.getByRole("dialog", { name: "Delivery of webhook.test" });
  await expect(drawer).toContainText('"message": "a test event sent from the console or the API"');
  await expect(drawer).toContainText("ok");
  await expectNoSeriousA11yViolation(page);
  await drawer.getByRole("button", { name: "Redeliver" }).click();
  await expect.poll(() => requests().length, { timeout: 15_000 }).toBe(5);
  await drawer.getByRole("button", { name: "Close" }).click();

  await page.getByRole("combobox", { name: "Filter by status" }).selectOption({ label: "Failed" });
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByText("No delivery with this status.")).toBeVisible();
  await page.getByRole("button", { name: "Clear filter" }).click();
  await expect(table.getByRole("row")).toHaveCount(3);

  // A new secret: the old one stops at once.
  await page.getByRole("button", { name: "Rotate secret" }).click();
  const rotate = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  await expect(rotate).toContainText("The old secret stops working at once");
  await rotate.getByRole("button", { name: "Rotate secret" }).click();
  const rotated = (await page.getByTestId("webhook-secret").textContent()) ?? "";
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect.poll(() => requests().length, { timeout: 15_000 }).toBe(6);
  expect(() => verifyHook(secret, request(5))).toThrow();
  expect((verifyHook(rotated, request(5)) as TestEvent).type).toBe("webhook.test");
  await expectNoSeriousA11yViolation(page);

  await page.getByRole("button", { name: "Delete", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Delete webhook?" });
  await expect(confirm).toContainText(url);
  await confirm.getByRole("button", { name: "Delete webhook" }).click();
  await expect(page).toHaveURL(/\/settings\/webhooks$/);
  await expect(page.getByText("No webhook yet.")).toBeVisible();
});

test("webhooks: an observer is told who manages them instead of seeing a list", async ({ page }) => {
  const owner = newAccount("hooks-owner");
  const observer = newAccount("hooks-reader");
  cli("namespace", "member", "add", observer.username, owner.namespace, "observer");
  await signIn(page, observer);
  await page.goto(`/settings/webhooks?ns=${owner.tenant}`);
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await expect(page.getByRole("main")).toContainText("managed by the namespace's administrators and its owner");
  await expect(page.getByRole("main")).toContainText("Requires the administrator role or above (yours: observer)");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(page.getByRole("button", { name: "Add webhook" })).toHaveCount(0);
  await expectNoSeriousA11yViolation(page);
});
