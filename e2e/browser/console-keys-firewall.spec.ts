import { createHash } from "node:crypto";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { base64Of, randomEd25519Line } from "@/testing/ssh-keys";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { acceptDevice, apiToken, newAccount, registerDevice, signIn } from "./support/console";
import { cli } from "./support/outbox";

// Public keys, firewall rules and tags: the live previews, the rule tester answered by the server,
// and tag changes everywhere. Each test has a namespace of its own.

/** Accepted devices of the account's namespace, with their tags; returns their uids by name. */
async function acceptedDevices(
  request: APIRequestContext,
  tenant: string,
  token: string,
  tags: Record<string, string[]>,
) {
  const uids: Record<string, string> = {};
  for (const [name, deviceTags] of Object.entries(tags)) {
    const uid = await registerDevice(request, tenant, name);
    await acceptDevice(request, token, uid);
    if (deviceTags.length > 0) {
      const response = await request.put(`/api/devices/${uid}/tags`, {
        headers: { authorization: `Bearer ${token}` },
        data: { tags: deviceTags },
      });
      expect(response.status(), await response.text()).toBe(200);
    }
    uids[name] = uid;
  }
  return uids;
}

const blobOf = (line: string) => Buffer.from(line.split(" ")[1] ?? "", "base64");
const md5Of = (line: string) => createHash("md5").update(blobOf(line)).digest("hex").match(/../g)?.join(":") ?? "";
const sha256Of = (line: string) =>
  `SHA256:${createHash("sha256").update(blobOf(line)).digest("base64").replace(/=+$/, "")}`;

/** axe in the light theme, then in the dark one (the theme cookie, as the account menu sets it). */
async function expectAccessibleInBothThemes(page: Page) {
  await expectNoSeriousA11yViolation(page);
  const url = new URL(page.url());
  await page.context().addCookies([{ name: "theme", value: "dark", domain: url.hostname, path: "/" }]);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSeriousA11yViolation(page);
  await page.context().addCookies([{ name: "theme", value: "light", domain: url.hostname, path: "/" }]);
}

test("public keys: paste and file, a private key and a bad key refused, live previews, delete", async ({ page }) => {
  const account = newAccount("keys");
  const token = await apiToken(page.request, account);
  await acceptedDevices(page.request, account.tenant, token, { "rpi-1": [], "rpi-2": [], "web-1": [] });
  await signIn(page, account);

  await page.goto("/keys");
  await expect(page.getByRole("heading", { name: "Public keys" })).toBeVisible();
  await expect(page.getByText("No public keys yet")).toBeVisible();
  await page.getByRole("button", { name: "Add public key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a public key" });
  const keyText = dialog.getByRole("textbox", { name: "Public key" });

  await keyText.fill(
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
  );
  await expect(dialog.getByText(/This is a private key — paste the \.pub/)).toBeVisible();
  await keyText.fill("ssh-ed25519 not-a-key!! someone");
  await expect(dialog.getByText("The key blob is not base64.")).toBeVisible();

  const pasted = randomEd25519Line("alice@laptop");
  await keyText.fill(pasted);
  const facts = dialog.getByRole("definition");
  await expect(facts.filter({ hasText: "Ed25519" })).toBeVisible();
  await expect(facts.filter({ hasText: "256 bits" })).toBeVisible();
  await expect(facts.filter({ hasText: sha256Of(pasted) })).toBeVisible();
  await expect(dialog.getByRole("textbox", { name: "Name", exact: true })).toHaveValue("alice@laptop");

  // The previews run the server's regex rules in the browser.
  await dialog.getByRole("radio", { name: "Users matching a pattern" }).check();
  await expect(dialog.getByTestId("username-preview")).toContainText("root: yes");
  await expect(dialog.getByTestId("username-preview")).toContainText("admin: no");
  await dialog.getByRole("radio", { name: "Hostname pattern" }).check();
  const hostname = dialog.getByRole("textbox", { name: "Hostname pattern" });
  await hostname.fill("^rpi-(");
  await expect(dialog.getByText(/Not a supported regular expression/)).toBeVisible();
  await hostname.fill("^rpi-");
  await expect(dialog.getByTestId("filter-preview")).toHaveText("Matches 2 of 3 devices: rpi-1, rpi-2");
  await expectNoSeriousA11yViolation(page);
  await dialog.getByRole("button", { name: "Add key" }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole("row").filter({ hasText: "alice@laptop" });
  await expect(row).toContainText(md5Of(pasted));
  await expect(row).toContainText("^root$");
  await expect(row).toContainText("^rpi-");

  // By file: the name comes from the key's comment.
  const fromFile = randomEd25519Line("bob@desk");
  await page.getByRole("button", { name: "Add public key" }).click();
  await dialog.getByLabel("Or choose its file").setInputFiles({
    name: "id_ed25519.pub",
    mimeType: "text/plain",
    buffer: Buffer.from(`${fromFile}\n`),
  });
  await expect(dialog.getByRole("textbox", { name: "Name", exact: true })).toHaveValue("bob@desk");
  await dialog.getByRole("button", { name: "Add key" }).click();
  await expect(page.getByRole("row").filter({ hasText: "bob@desk" })).toContainText(md5Of(fromFile));
  await expectAccessibleInBothThemes(page);

  // Delete asks first, naming the key.
  await page.getByRole("button", { name: "Delete bob@desk" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete public key bob@desk?" });
  await confirm.getByRole("button", { name: "Delete bob@desk" }).click();
  await expect(page.getByRole("row").filter({ hasText: "bob@desk" })).toHaveCount(0);

  // A phone: the table becomes a list of cards.
  await page.setViewportSize({ width: 375, height: 740 });
  await expect(
    page.getByRole("list", { name: "Public keys" }).getByRole("button", { name: "Edit alice@laptop" }),
  ).toBeVisible();
});

test("firewall: create with a field error, evaluation order, optimistic toggle, the tester names the rule", async ({
  page,
}) => {
  const account = newAccount("fw");
  const token = await apiToken(page.request, account);
  await acceptedDevices(page.request, account.tenant, token, { "web-1": [] });
  await signIn(page, account);

  await page.goto("/firewall");
  await expect(page.getByText("No rules: every connection")).toBeVisible();
  await page.getByRole("button", { name: "Add rule" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add a firewall rule" });
  await dialog.getByRole("textbox", { name: "Source IP pattern" }).fill("(10");
  await expect(dialog.getByText(/Not a supported regular expression/)).toBeVisible();
  await dialog.getByRole("button", { name: "Create rule" }).click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("textbox", { name: "Source IP pattern" })).toBeFocused();
  await dialog.getByRole("textbox", { name: "Source IP pattern" }).fill("^10\\.0\\.");
  await dialog.getByRole("radio", { name: "Users matching a pattern" }).check();
  await dialog.getByRole("button", { name: "Create rule" }).click();
  await expect(dialog).toBeHidden();

  const rules = async () =>
    (await (
      await page.request.get("/api/firewall/rules", { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      id: string;
      priority: number;
      active: boolean;
    }[];
  const [deny] = await rules();
  expect(deny?.priority).toBe(10);
  // A rule of lower priority number goes first, whatever its age.
  const created = await page.request.post("/api/firewall/rules", {
    headers: { authorization: `Bearer ${token}` },
    data: {
      action: "allow",
      active: true,
      priority: 5,
      source_ip: ".*",
      username: "^root$",
      filter: { hostname: ".*" },
    },
  });
  const allow = await created.json();
  await page.reload();
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows.nth(1)).toContainText(`#${allow.id}`);
  await expect(rows.nth(1)).toContainText("Evaluated first");
  await expect(rows.nth(2)).toContainText(`#${deny?.id}`);

  // The tester: the allow rule decides first.
  await expect(page.getByRole("combobox", { name: "Device" })).toContainText("web-1");
  await page.getByRole("textbox", { name: "Source IP", exact: true }).fill("10.0.0.5");
  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByTestId("firewall-verdict")).toHaveText(`Allowed by rule #${allow.id} (priority 5).`);

  // Turned off at once; a refusal puts the switch back and says so.
  const allowSwitch = page.getByRole("switch", { name: `rule #${allow.id} active` });
  await page.route("**/api/firewall/rules/*", (route) =>
    route.request().method() === "PUT"
      ? route.fulfill({ status: 500, json: { message: "the database is busy", request_id: "r-1" } })
      : route.fallback(),
  );
  await allowSwitch.click();
  await expect(page.getByText(/was not turned off: The database is busy/)).toBeVisible();
  await expect(allowSwitch).toBeChecked();
  await page.unroute("**/api/firewall/rules/*");
  await allowSwitch.click();
  await expect(allowSwitch).not.toBeChecked();
  await expect.poll(async () => (await rules()).find((rule) => rule.id === allow.id)?.active).toBe(false);
  await expect(rows.nth(2)).toContainText("Evaluated first");

  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByTestId("firewall-verdict")).toHaveText(`Denied by rule #${deny?.id} (priority 10).`);
  await page.getByRole("textbox", { name: "Source IP", exact: true }).fill("192.0.2.1");
  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByTestId("firewall-verdict")).toHaveText(
    "Allowed: no rule matched, so the connection is allowed.",
  );
  await page.getByRole("textbox", { name: "Source IP", exact: true }).fill("10.0.0");
  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByText("Expected an IP address.")).toBeVisible();
  await expectAccessibleInBothThemes(page);
});

test("tags: counts with links, rename and delete everywhere", async ({ page }) => {
  const account = newAccount("tags");
  const token = await apiToken(page.request, account);
  const auth = { authorization: `Bearer ${token}` };
  await acceptedDevices(page.request, account.tenant, token, { "api-1": ["prod", "eu-west"], "api-2": ["prod"] });
  const key = await page.request.post("/api/sshkeys/public-keys", {
    headers: auth,
    data: { data: base64Of(randomEd25519Line("ops")), name: "ops", username: ".*", filter: { tags: ["prod"] } },
  });
  expect(key.status(), await key.text()).toBe(200);
  const rule = await page.request.post("/api/firewall/rules", {
    headers: auth,
    data: { action: "deny", active: true, priority: 1, source_ip: ".*", username: ".*", filter: { tags: ["eu-west"] } },
  });
  expect(rule.status(), await rule.text()).toBe(200);
  await signIn(page, account);

  await page.goto("/tags");
  const prod = page.getByRole("row").filter({ hasText: "prod" });
  await expect(prod.getByRole("link", { name: "2 devices tagged prod" })).toHaveAttribute("href", "/devices?tag=prod");
  await expect(prod).toContainText("1 public key");
  const euWest = page.getByRole("row").filter({ hasText: "eu-west" });
  await expect(euWest).toContainText("1 device");
  await expect(euWest).toContainText("1 firewall rule");
  await expectAccessibleInBothThemes(page);

  await page.getByRole("button", { name: "Rename prod" }).click();
  const rename = page.getByRole("dialog", { name: "Rename tag prod" });
  await rename.getByRole("textbox", { name: "New name" }).fill("pr");
  await rename.getByRole("button", { name: "Rename everywhere" }).click();
  await expect(rename.getByText("At least 3 characters.")).toBeVisible();
  await rename.getByRole("textbox", { name: "New name" }).fill("eu-west");
  await rename.getByRole("button", { name: "Rename everywhere" }).click();
  await expect(rename.getByText(/already exists/)).toBeVisible();
  await rename.getByRole("textbox", { name: "New name" }).fill("production");
  await rename.getByRole("button", { name: "Rename everywhere" }).click();
  await expect(rename).toBeHidden();
  const production = page.getByRole("row").filter({ hasText: "production" });
  await expect(production.getByRole("link", { name: "2 devices tagged production" })).toBeVisible();
  await expect(production).toContainText("1 public key");
  const keys = await (await page.request.get("/api/sshkeys/public-keys", { headers: auth })).json();
  expect(keys[0].filter).toEqual({ tags: ["production"] });

  await page.getByRole("button", { name: "Delete eu-west" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete tag eu-west everywhere?" });
  await expect(confirm).toContainText("1 device, 0 public keys and 1 firewall rule");
  await expect(confirm).toContainText("it is the only tag");
  await confirm.getByRole("button", { name: "Delete eu-west" }).click();
  await expect(page.getByRole("row").filter({ hasText: "eu-west" })).toHaveCount(0);
  const devices = await (await page.request.get("/api/devices?per_page=10", { headers: auth })).json();
  expect(devices.flatMap((device: { tags: string[] }) => device.tags).sort()).toEqual(["production", "production"]);
});

test("roles: an operator renames tags, and sees key and rule changes disabled with the reason", async ({ page }) => {
  const owner = newAccount("roles");
  const token = await apiToken(page.request, owner);
  const auth = { authorization: `Bearer ${token}` };
  await acceptedDevices(page.request, owner.tenant, token, { "edge-1": ["site-a"] });
  const key = await page.request.post("/api/sshkeys/public-keys", {
    headers: auth,
    data: { data: base64Of(randomEd25519Line("ops")), name: "ops", username: ".*", filter: { tags: ["site-a"] } },
  });
  expect(key.status(), await key.text()).toBe(200);
  const rule = await page.request.post("/api/firewall/rules", {
    headers: auth,
    data: { action: "deny", active: true, priority: 1, source_ip: ".*", username: ".*", filter: { hostname: ".*" } },
  });
  const { id } = await rule.json();
  // A member of this namespace only, so the session starts in it.
  const operator = { username: `${owner.username}-op`, password: "console-pass" };
  cli("user", "create", operator.username, operator.password, `${operator.username}@example.com`);
  cli("namespace", "member", "add", operator.username, owner.namespace, "operator");
  await signIn(page, operator);

  const needsAdministrator = "Requires the administrator role or above (yours: operator)";
  await page.goto("/keys");
  await expect(page.getByRole("button", { name: "Add public key" })).toHaveAttribute("title", needsAdministrator);
  await expect(page.getByRole("button", { name: "Delete ops" })).toBeDisabled();
  await page.goto("/firewall");
  await expect(page.getByRole("button", { name: "Add rule" })).toHaveAttribute("title", needsAdministrator);
  await expect(page.getByRole("switch", { name: `rule #${id} active` })).toBeDisabled();
  await page.goto("/tags");
  await page.getByRole("button", { name: "Rename site-a" }).click();
  const rename = page.getByRole("dialog", { name: "Rename tag site-a" });
  await rename.getByRole("textbox", { name: "New name" }).fill("site-b");
  await rename.getByRole("button", { name: "Rename everywhere" }).click();
  await expect(page.getByRole("row").filter({ hasText: "site-b" })).toContainText("1 public key");
});
