import { expect, test } from "@playwright/test";
import { startAgent } from "@/testing/agent-process";
import { createAccount } from "@/testing/local-accounts";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, registerDevice, signIn, terminalText } from "./support/console";

// The devices half of the console with a real agent: onboarding, the live list, the device page
// and its terminal. Each test has a namespace of its own.

const isRoot = process.getuid?.() === 0;

test("onboarding: the command, the agent's device live, Accept, and the ssh command", async ({ page, baseURL }) => {
  const account = newAccount("onboard");
  await signIn(page, account);
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Connect your first device" })).toBeVisible();
  const command = page.locator("code").filter({ hasText: "install.sh" });
  await expect(command).toContainText(account.tenant);
  // The service's public address, as /info gives it to agents.
  const { endpoints } = await (await page.request.get("/info")).json();
  await expect(command).toContainText(`http://${endpoints.api}/install.sh`);
  await expectNoSeriousA11yViolation(page);

  const agent = startAgent(baseURL ?? "", account.tenant);
  try {
    // No reload: the device arrives over the event stream (or the polling fallback).
    const accept = page.getByRole("button", { name: `Accept ${agent.hostname}` });
    await expect(accept).toBeVisible({ timeout: 20_000 });
    await accept.click();
    const info = await (await page.request.get("/info")).json();
    const port = info.endpoints.ssh.split(":").at(-1);
    await expect(page.locator("code").filter({ hasText: `-p ${port}` })).toContainText(
      `root@${account.namespace}.${agent.hostname}@`,
    );
  } finally {
    await agent.stop();
  }
});

test("devices list: URL state, tabs, bulk accept with a failure named, live offline", async ({ page, baseURL }) => {
  const account = newAccount("fleet");
  const token = await apiToken(page.request, account);
  const late = "beta-1";
  const names = ["alpha-1", "alpha-2", late];
  const uids: string[] = [];
  for (const name of names.slice(0, 2)) uids.push(await registerDevice(page.request, account.tenant, name));
  await signIn(page, account);

  // The last device registers after the list was fetched and before the event stream opens: it is
  // in no answer and in no event, and is listed all the same.
  const listed = page.waitForResponse(
    (response) => new URL(response.url()).pathname === "/api/devices" && response.request().method() === "GET",
  );
  await page.route(
    "**/api/events",
    async (route) => {
      await listed;
      uids.push(await registerDevice(page.request, account.tenant, late));
      await route.continue();
    },
    { times: 1 },
  );
  await page.goto("/devices?status=pending");
  await expect(page.getByRole("tab", { name: /Pending/, selected: true })).toBeVisible();
  for (const name of names) await expect(page.getByRole("link", { name, exact: true })).toBeVisible();

  // One accept fails (answered here as the server answers at the device limit); the summary names it.
  await page.route(`**/api/devices/${uids[2]}/accept`, (route) =>
    route.fulfill({ status: 402, json: { message: "the device limit of the namespace is reached" } }),
  );
  await page.getByRole("checkbox", { name: "Select every device on this page" }).check();
  await page.getByRole("button", { name: "Accept", exact: true }).click();
  await expect(page.getByText("2 accepted · 1 failed").first()).toBeVisible();
  await expect(page.getByText(/the device limit of the namespace is reached/i)).toBeVisible();
  await page.unroute(`**/api/devices/${uids[2]}/accept`);

  // Search and filters live in the URL and survive a reload.
  await page.getByRole("tab", { name: "Devices" }).click();
  await page.getByRole("searchbox", { name: "Search devices by name" }).fill("alpha");
  await expect(page).toHaveURL(/q=alpha/);
  await page.reload();
  await expect(page.getByRole("searchbox", { name: "Search devices by name" })).toHaveValue("alpha");
  await expect(page.getByRole("link", { name: "alpha-2", exact: true })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search devices by name" }).fill("nothing-like-this");
  await expect(page.getByText("No devices match these filters.")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page).not.toHaveURL(/q=/);

  // A real agent goes offline without a reload when it stops.
  const agent = startAgent(baseURL ?? "", account.tenant);
  try {
    // The agent registers in the background: its device is on the pending list once it has.
    let uid = "";
    await expect(async () => {
      const pending = await page.request.get("/api/devices?status=pending&per_page=100", {
        headers: { authorization: `Bearer ${token}` },
      });
      const device = ((await pending.json()) as { name: string; uid: string }[]).find((d) => d.name === agent.hostname);
      expect(device).toBeDefined();
      uid = device?.uid ?? "";
    }).toPass({ timeout: 10_000 });
    expect(
      (await page.request.patch(`/api/devices/${uid}/accept`, { headers: { origin: baseURL ?? "" } })).status(),
    ).toBe(200);
    const row = page.getByRole("row").filter({ hasText: agent.hostname });
    await expect(row).toContainText("Online", { timeout: 20_000 });
    await expectNoSeriousA11yViolation(page);
    await agent.stop();
    await expect(row).toContainText("Offline", { timeout: 10_000 });
  } finally {
    await agent.stop();
  }
});

test("device page: rename with the rule, tags, remove; a terminal that runs a command", async ({ page, baseURL }) => {
  test.skip(!isRoot, "the agent serves this machine's accounts: root only");
  const account = newAccount("detail");
  const local = createAccount();
  const agent = startAgent(baseURL ?? "", account.tenant);
  try {
    await signIn(page, account);
    await page.goto("/devices?status=pending");
    await page.getByRole("button", { name: `Accept ${agent.hostname}` }).click();
    await expect(page.getByText(`${agent.hostname} accepted`)).toBeVisible();
    await page.getByRole("tab", { name: "Devices" }).click();
    await page.getByRole("link", { name: agent.hostname, exact: true }).click();
    await expect(page.getByRole("heading", { name: agent.hostname })).toBeVisible();

    await page.getByRole("button", { name: "Rename device" }).click();
    await page.getByLabel("Device name").fill("Not A Hostname!");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("1 to 63 lower-case letters, digits or inner hyphens.")).toBeVisible();
    await page.getByLabel("Device name").press("Escape");
    await page.getByRole("button", { name: "Rename device" }).click();
    await page.getByLabel("Device name").fill("board-7");
    await page.getByLabel("Device name").press("Enter");
    await expect(page.getByRole("heading", { name: "board-7" })).toBeVisible();

    await page.getByPlaceholder("Add a tag").fill("lab");
    await page.getByRole("button", { name: "Add tag" }).click();
    await expect(page.getByRole("list", { name: "Tags" })).toContainText("lab");
    await expect(
      page
        .locator("code")
        .filter({ hasText: `@${account.namespace}.board-7@` })
        .first(),
    ).toBeVisible();
    await expectNoSeriousA11yViolation(page);

    // The header's status comes first; the Diagnostics card says "Online" again below it.
    await expect(page.getByText("Online", { exact: true }).first()).toBeVisible({ timeout: 20_000 });
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByLabel("User on the device").last().fill(local.name);
    await page.getByRole("textbox", { name: "Password" }).fill("wrong-password");
    await page.getByRole("button", { name: "Connect", exact: true }).last().click();
    await expect(page.getByText(/The login was refused/)).toBeVisible({ timeout: 20_000 });
    await page.getByRole("button", { name: "Reconnect" }).click();
    await page.getByRole("textbox", { name: "Password" }).fill(local.password);
    await page.getByRole("button", { name: "Connect", exact: true }).last().click();
    const input = page.getByRole("textbox", { name: "Terminal input" });
    await expect(input).toBeFocused({ timeout: 20_000 });
    await input.pressSequentially("echo console-$((40+2))\n");
    await expect.poll(() => terminalText(page), { timeout: 15_000 }).toContain("console-42");

    // The terminal stays connected while the person moves to another page.
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
    await page.getByRole("textbox", { name: "Terminal input" }).pressSequentially("echo still-$((1+1))\n");
    await expect.poll(() => terminalText(page), { timeout: 15_000 }).toContain("still-2");

    // The pty follows the dock's size: a narrower window gives the shell fewer columns.
    const columns = async () => {
      await page.getByRole("textbox", { name: "Terminal input" }).pressSequentially("echo cols=$(tput cols)=\n");
      let found = 0;
      await expect
        .poll(async () => {
          const matches = [...(await terminalText(page)).matchAll(/cols=(\d+)=/g)];
          found = Number(matches.at(-1)?.[1] ?? 0);
          return found;
        })
        .toBeGreaterThan(0);
      return found;
    };
    const wide = await columns();
    await page.setViewportSize({ width: 700, height: 720 });
    await expect.poll(columns, { timeout: 15_000 }).toBeLessThan(wide);

    // A paste of more than 5 lines asks first; declined, nothing reaches the shell.
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole("textbox", { name: "Terminal input" }).evaluate((input) => {
      const data = new DataTransfer();
      data.setData(
        "text/plain",
        "echo pasted-1\necho pasted-2\necho pasted-3\necho pasted-4\necho pasted-5\necho pasted-6\n",
      );
      input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    expect(asked).toEqual(["Paste 6 lines into the terminal?"]);
    await page.getByRole("textbox", { name: "Terminal input" }).pressSequentially("echo after-$((2+3))\n");
    await expect.poll(() => terminalText(page), { timeout: 15_000 }).toContain("after-5");
    expect(await terminalText(page)).not.toContain("pasted-1");

    // Screen reader mode mirrors the output into the accessibility tree.
    await page.getByRole("button", { name: "Screen reader mode" }).click();
    await expect(page.getByRole("button", { name: "Screen reader mode" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.locator(".xterm-accessibility-tree")).toContainText("after-5");

    // No keyboard trap: Escape twice in a row moves the focus out of the terminal.
    const terminalInput = page.getByRole("textbox", { name: "Terminal input" });
    await terminalInput.focus();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await expect(terminalInput).not.toBeFocused();
  } finally {
    await agent.stop();
    local.remove();
  }
});

test("an unknown device id is a not-found page, not an error", async ({ page }) => {
  await signIn(page, newAccount("missing"));
  await page.goto(`/devices/${"0".repeat(64)}`);
  await expect(page.getByRole("heading", { name: "Device not found" })).toBeVisible();
});
