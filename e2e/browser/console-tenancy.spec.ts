import { expect, type Page, test } from "@playwright/test";
import { acceptDevice, apiToken, newAccount, registerDevice, signIn } from "./support/console";
import { cli } from "./support/outbox";

// A member of two namespaces, owner of one and observer of the other: what the console shows of
// one namespace never shows in the other, before and after switching, and the role follows.

type Fleet = { name: string; role: string; accepted: string[]; pending: string[]; other: string };

const switcher = (page: Page) => page.getByRole("button", { name: /^Namespace: .*\. Switch namespace$/ });

async function switchTo(page: Page, namespace: string) {
  await switcher(page).click();
  await page.getByRole("button", { name: new RegExp(`^${namespace} `) }).click();
  await expect(page.getByRole("button", { name: `Namespace: ${namespace}. Switch namespace` })).toBeVisible();
}

/** The namespace's own devices and counters, with nothing of the other's (`other` is its name prefix). */
async function expectOnly(page: Page, fleet: Fleet) {
  await expect(switcher(page)).toContainText(fleet.role);

  await page.goto("/devices");
  for (const name of fleet.accepted) await expect(page.getByRole("link", { name, exact: true })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText(fleet.other);
  await page.getByRole("tab", { name: /Pending/ }).click();
  for (const name of fleet.pending) await expect(page.getByRole("link", { name, exact: true })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText(fleet.other);

  await page.goto("/dashboard");
  const card = (label: string) => page.locator("section").filter({ has: page.getByRole("heading", { name: label }) });
  await expect(card("Online devices").locator("p")).toHaveText(new RegExp(`^\\d+ / ${fleet.accepted.length}$`));
  await expect(card("Pending approval").locator("p")).toHaveText(String(fleet.pending.length));
  await expect(page.getByRole("main")).not.toContainText(fleet.other);
  await expect(switcher(page)).toContainText(fleet.role);
}

test("a member of two namespaces sees each alone, with its own role", async ({ page }) => {
  const member = newAccount("tenancy");
  const owner = newAccount("tenancy-b");
  const a: Fleet = {
    name: member.namespace,
    role: "owner",
    accepted: ["alpha-one"],
    pending: ["alpha-two", "alpha-three"],
    other: "bravo-",
  };
  const b: Fleet = {
    name: owner.namespace,
    role: "observer",
    accepted: ["bravo-one", "bravo-two"],
    pending: ["bravo-three"],
    other: "alpha-",
  };
  const uids: Record<string, string> = {};
  for (const [account, fleet] of [
    [member, a],
    [owner, b],
  ] as const) {
    const token = await apiToken(page.request, account);
    for (const name of [...fleet.accepted, ...fleet.pending])
      uids[name] = await registerDevice(page.request, account.tenant, name);
    for (const name of fleet.accepted) await acceptDevice(page.request, token, uids[name] ?? "");
  }
  cli("namespace", "member", "add", member.username, owner.namespace, "observer");

  await signIn(page, member);
  await page.goto("/dashboard");
  // The session starts in one of the two; the test starts in A.
  const loaded = page.getByRole("button", { name: new RegExp(`^Namespace: (${a.name}|${b.name})\\. `) });
  if ((await loaded.getAttribute("aria-label"))?.startsWith(`Namespace: ${b.name}.`)) await switchTo(page, a.name);
  await expectOnly(page, a);
  // The owner may accept.
  await page.goto("/devices?status=pending");
  await expect(page.getByRole("button", { name: "Accept alpha-two" })).toBeEnabled();

  await switchTo(page, b.name);
  await expectOnly(page, b);
  // The observer sees the actions disabled, with the reason.
  await page.goto("/devices?status=pending");
  const accept = page.getByRole("button", { name: "Accept bravo-three" });
  await expect(accept).toBeDisabled();
  await expect(accept).toHaveAttribute("title", "Requires the operator role or above (yours: observer)");
  await page.goto(`/devices/${uids["bravo-one"]}`);
  await expect(page.getByRole("heading", { name: "bravo-one" })).toBeVisible();
  const remove = page.getByRole("button", { name: "Remove", exact: true });
  await expect(remove).toBeDisabled();
  await expect(remove).toHaveAttribute("title", "Requires the administrator role or above (yours: observer)");
  // A device of the other namespace is not found here, even by its address.
  await page.goto(`/devices/${uids["alpha-one"]}`);
  await expect(page.getByRole("heading", { name: "Device not found" })).toBeVisible();

  await switchTo(page, a.name);
  await expectOnly(page, a);
});
