import { type APIRequestContext, expect, test } from "@playwright/test";
import { signedEvent, stripeTestKey } from "@/testing/stripe-server";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, registerDevice, signIn } from "./support/console";
import { cli } from "./support/outbox";
import { stripePort } from "./support/processor";

// Billing on, as the cloud edition runs it. The payment processor cannot be reached from here:
// the server's official `stripe` client talks to the test suite's own Stripe-compatible server
// (support/processor.ts), whose hosted card page stands for the processor's.

const processorUrl = `http://127.0.0.1:${stripePort}`;

/** What the owner does before the test looks: a customer, two cards saved on the hosted page, a subscription. */
async function subscribedOwner(request: APIRequestContext, token: string) {
  const auth = { authorization: `Bearer ${token}` };
  expect((await request.post("/api/billing/customer", { headers: auth })).status()).toBe(200);
  for (let card = 0; card < 2; card++) {
    const session = await request.post("/api/billing/setup-session", { headers: auth, data: {} });
    const { url } = await session.json();
    expect((await request.post(url, { maxRedirects: 0 })).status()).toBe(303);
  }
  const subscription = await request.post("/api/billing/subscription", { headers: auth });
  expect(subscription.status(), await subscription.text()).toBe(200);
  return (await subscription.json()).id as string;
}

/** The processor cancels the subscription and delivers its signed event to the webhook. */
async function cancelAtProcessor(request: APIRequestContext, subscription: string) {
  const changed = await request.post(`${processorUrl}/test/subscriptions/${subscription}/status`, {
    headers: { authorization: `Bearer ${stripeTestKey}` },
    form: { status: "canceled" },
  });
  expect(changed.status()).toBe(200);
  const { payload, signature } = signedEvent(await changed.json());
  const delivered = await request.post("/api/billing/webhook", {
    headers: { "content-type": "application/json", "stripe-signature": signature },
    data: payload,
  });
  expect(delivered.status(), await delivered.text()).toBe(200);
}

test("over the free plan: the accept's 402 leads to the device choice; cards: default and remove", async ({ page }) => {
  const owner = newAccount("bill");
  const token = await apiToken(page.request, owner);
  const subscription = await subscribedOwner(page.request, token);
  const names = ["edge-1", "edge-2", "edge-3", "edge-4"];
  for (const name of names) {
    const uid = await registerDevice(page.request, owner.tenant, name);
    const accepted = await page.request.patch(`/api/devices/${uid}/accept`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(accepted.status()).toBe(200);
  }
  await cancelAtProcessor(page.request, subscription);
  await registerDevice(page.request, owner.tenant, "edge-5");

  await signIn(page, owner);
  await page.goto("/devices?status=pending");
  const banner = page.getByText(
    "The subscription ended and this namespace holds more devices than the free plan keeps.",
  );
  await expect(banner).toBeVisible();
  await page.getByRole("button", { name: "Accept edge-5" }).click();
  await expect(page.getByText(/edge-5 was not accepted: .*free plan/)).toBeVisible();
  await page.getByRole("button", { name: "See plan" }).click();

  const dialog = page.getByRole("dialog", { name: "Choose the devices to keep" });
  await expect(dialog).toContainText("3 of 3 selected");
  await expect(dialog).toContainText("1 device will be removed.");
  await expect(dialog.getByRole("checkbox", { checked: true })).toHaveCount(3);
  await dialog.getByRole("button", { name: "Keep 3 devices" }).click();
  await expect(dialog).toBeHidden();
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole("main")).toContainText("3 of 3 accepted devices");
  await expectNoSeriousA11yViolation(page);

  const cards = page.getByRole("table", { name: "Payment methods" });
  await expect(cards.getByRole("row")).toHaveCount(3);
  await cards.getByRole("button", { name: "Make default" }).click();
  await expect(page.getByText(/is the default$/)).toBeVisible();
  await expect(cards.getByText("default", { exact: true })).toHaveCount(1);
  const other = cards.getByRole("row").filter({ has: page.getByRole("button", { name: "Make default" }) });
  await other.getByRole("button", { name: /^Remove / }).click();
  const confirm = page.getByRole("dialog", { name: /^Remove visa \d{4}\?$/ });
  await confirm.getByRole("button", { name: "Remove card" }).click();
  await expect(confirm).toBeHidden();
  await expect(cards.getByRole("row")).toHaveCount(2);
});

test("a member who is not the owner is told who manages billing", async ({ page }) => {
  const owner = newAccount("own");
  const token = await apiToken(page.request, owner);
  const member = { username: `obs-${owner.tenant.slice(0, 6)}`, password: "console-pass" };
  cli("user", "create", member.username, member.password, `${member.username}@example.com`);
  const added = await page.request.post(`/api/namespaces/${owner.tenant}/members`, {
    headers: { authorization: `Bearer ${token}` },
    data: { identifier: member.username, role: "administrator" },
  });
  expect(added.status(), await added.text()).toBe(200);
  await signIn(page, member);
  await page.goto("/settings/billing");
  await expect(page.getByRole("main")).toContainText(`Billing is managed by the owner (${owner.username}).`);
});
