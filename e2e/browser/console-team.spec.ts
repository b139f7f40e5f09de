import { randomBytes, randomUUID } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { newAccount, signIn } from "./support/console";
import { cli } from "./support/outbox";

// The team page: add a member with a role, change it, remove, leave; the owner's row and one's
// own cannot be changed; what a role may not do is disabled with the reason. The server of these
// tests mails nothing (no SMTP_URL), so added members are members at once, in the cloud edition
// as in the community one; /accept-invite is checked for the answers it gives without a live
// invitation.

const switcher = (page: Page) => page.getByRole("button", { name: /^Namespace: .*\. Switch namespace$/ });
const memberRow = (page: Page, username: string) => page.getByRole("row").filter({ hasText: username });

/** A confirmed account without a namespace of its own. */
function accountWithoutNamespace(prefix: string) {
  const username = `${prefix}-${randomBytes(3).toString("hex")}`;
  const account = { username, password: "console-pass", email: `${username}@example.com` };
  cli("user", "create", account.username, account.password, account.email);
  return account;
}

test("add a member with a role, who then sees the namespace; change the role; remove", async ({ page, browser }) => {
  const owner = newAccount("team");
  const member = newAccount("team-m");
  await signIn(page, owner);
  await page.goto("/team");
  await expect(page.getByRole("heading", { name: "Team", level: 1 })).toBeVisible();
  await expect(memberRow(page, owner.username)).toContainText("owner");
  await expectNoSeriousA11yViolation(page);

  // An unknown account is told in place, on the field.
  await page.getByLabel("Username or e-mail").fill("nobody-at-all");
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText("No account has this username or e-mail.")).toBeVisible();

  await page.getByLabel("Username or e-mail").fill(member.email);
  await page.getByLabel("Role", { exact: true }).selectOption("operator");
  await page.getByRole("button", { name: "Add member" }).click();
  // The row's role is its select's value: the text of its options names every role the owner may give.
  const memberRole = page.getByRole("combobox", { name: `Change role of ${member.username}` });
  await expect(memberRole).toHaveValue("operator");
  await expect(memberRow(page, member.username)).toContainText(member.email);

  // The owner's row: no remove, and the role is not changeable (it is also the signed-in one's).
  await expect(page.getByRole("button", { name: `Remove ${owner.username}` })).toHaveCount(0);
  const ownRole = page.getByRole("combobox", { name: `Change role of ${owner.username}` });
  await expect(ownRole).toBeDisabled();
  await expect(ownRole).toHaveAttribute("title", /own membership/);

  // The member, in a browser of their own, finds the namespace with the role given.
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signIn(memberPage, member);
  await memberPage.goto("/dashboard");
  await switcher(memberPage).click();
  await memberPage.getByRole("button", { name: new RegExp(`^${owner.namespace} `) }).click();
  await expect(
    memberPage.getByRole("button", { name: `Namespace: ${owner.namespace}. Switch namespace` }),
  ).toBeVisible();
  await expect(switcher(memberPage)).toContainText("operator");

  await memberRole.selectOption("administrator");
  // Changed once the server has answered, as the owner is told; the member's reload comes after.
  await expect(page.getByText(`${member.username} is now administrator`)).toBeVisible();
  await expect(memberRole).toHaveValue("administrator");
  await memberPage.reload();
  await expect(switcher(memberPage)).toContainText("administrator");
  // An administrator cannot change their own role either.
  await memberPage.goto("/team");
  await expect(memberPage.getByRole("combobox", { name: `Change role of ${member.username}` })).toBeDisabled();
  await expect(memberPage.getByRole("button", { name: `Remove ${owner.username}` })).toHaveCount(0);
  await memberContext.close();

  await page.getByRole("button", { name: `Remove ${member.username}` }).click();
  const dialog = page.getByRole("dialog", { name: `Remove ${member.username} from ${owner.namespace}?` });
  await expect(dialog).toBeVisible();
  await expectNoSeriousA11yViolation(page);
  await dialog.getByRole("button", { name: `Remove ${member.username}` }).click();
  await expect(memberRow(page, member.username)).toHaveCount(0);
});

test("leave a namespace: to another of one's namespaces, or to none", async ({ page }) => {
  const owner = newAccount("leave");
  const member = newAccount("leave-m");
  const loner = accountWithoutNamespace("leave-l");
  cli("namespace", "member", "add", member.username, owner.namespace, "administrator");
  cli("namespace", "member", "add", loner.username, owner.namespace, "observer");

  // The owner has no way to leave.
  await signIn(page, owner);
  await page.goto("/team");
  await expect(memberRow(page, member.username)).toBeVisible();
  await expect(page.getByRole("button", { name: "Leave namespace" })).toHaveCount(0);
  await page.context().clearCookies();

  await signIn(page, member);
  await page.goto("/team");
  if (!(await switcher(page).getAttribute("aria-label"))?.includes(owner.namespace)) {
    await switcher(page).click();
    await page.getByRole("button", { name: new RegExp(`^${owner.namespace} `) }).click();
    await expect(page.getByRole("button", { name: `Namespace: ${owner.namespace}. Switch namespace` })).toBeVisible();
  }
  await page.getByRole("button", { name: "Leave namespace" }).click();
  await page
    .getByRole("dialog", { name: `Leave ${owner.namespace}?` })
    .getByRole("button", { name: `Leave ${owner.namespace}` })
    .click();
  await expect(page.getByRole("button", { name: `Namespace: ${member.namespace}. Switch namespace` })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.context().clearCookies();

  // The last namespace left: the console asks for a first one, and the session is still good.
  await signIn(page, loner);
  await page.goto("/team");
  await page.getByRole("button", { name: "Leave namespace" }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: `Leave ${owner.namespace}` })
    .click();
  await expect(page.getByRole("heading", { name: "Create your first namespace" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Create your first namespace" })).toBeVisible();
});

test("each role sees what it may not do disabled, with the reason", async ({ page }) => {
  const owner = newAccount("roles");
  const cases = [
    { role: "observer", addMember: false, createKey: false, rename: false },
    { role: "operator", addMember: false, createKey: false, rename: false },
    { role: "administrator", addMember: true, createKey: true, rename: true },
  ] as const;
  for (const expected of cases) {
    const account = accountWithoutNamespace(`roles-${expected.role.slice(0, 3)}`);
    cli("namespace", "member", "add", account.username, owner.namespace, expected.role);
    await page.context().clearCookies();
    await signIn(page, account);
    const reason = `Requires the administrator role or above (yours: ${expected.role})`;
    const check = async (name: string, isAllowed: boolean, why = reason) => {
      const button = page.getByRole("button", { name, exact: true });
      if (isAllowed) await expect(button).toBeEnabled();
      else {
        await expect(button).toBeDisabled();
        await expect(button).toHaveAttribute("title", why);
      }
    };

    await page.goto("/team");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" })).toBeVisible();
    await check("Add member", expected.addMember);
    // Nobody but the owner acts on the owner; an administrator may act on lower roles only.
    await expect(page.getByRole("combobox", { name: `Change role of ${owner.username}` })).toBeDisabled();

    await page.goto("/team/api-keys");
    await check("Create API key", expected.createKey);

    await page.goto("/settings");
    await check("Rename", expected.rename);
    await check("Delete namespace", false, `Requires the owner role (yours: ${expected.role})`);
    await expect(page.getByRole("switch", { name: /Record sessions/ })).toBeEnabled({ enabled: expected.rename });
  }
});

test("/accept-invite: an incomplete or stale link says so; signed out, it leads to log in and back", async ({
  page,
}) => {
  await page.goto("/accept-invite?tenant-id=x");
  await expect(page.getByText("This link is incomplete")).toBeVisible();

  const owner = newAccount("invite");
  const invited = newAccount("invite-m");
  const invitedId = (
    await (
      await page.request.post("/api/login", { data: { username: invited.username, password: invited.password } })
    ).json()
  ).id as string;
  const link = `/accept-invite?tenant-id=${owner.tenant}&user-id=${invitedId}&sig=stale-${randomUUID()}`;

  await page.goto(link);
  await expect(page.getByText("This invitation is no longer valid")).toBeVisible();
  await expectNoSeriousA11yViolation(page);

  // Signed in as another account: the page says whose the invitation is not, and offers to switch.
  await signIn(page, owner);
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "This invitation is for another account" })).toBeVisible();
  await page.getByRole("button", { name: "Log out and switch account" }).click();
  await expect(page).toHaveURL(/\/login\?next=%2Faccept-invite/);

  // Logging in from there comes back to the invitation, where accepting a stale one fails in place.
  await page.getByLabel("Username or e-mail").fill(invited.username);
  await page.getByLabel("Password").fill(invited.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(new RegExp(`/accept-invite\\?tenant-id=${owner.tenant}`));
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await expect(page.getByText("The invitation was not accepted.")).toBeVisible();
});
