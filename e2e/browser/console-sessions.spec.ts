import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { Client, type ClientChannel } from "ssh2";
import { startAgent } from "@/testing/agent-process";
import { createAccount } from "@/testing/local-accounts";
import { expectNoSeriousA11yViolation } from "./support/a11y";
import { apiToken, newAccount, signIn, terminalText } from "./support/console";
import { cli } from "./support/outbox";

// Sessions and their replay, with a real agent and a real SSH client through the gateway: the
// session appears live, an observer may neither close nor replay it, an administrator closes it
// and the client's connection ends, and the player finds a typed string and seeks to it.

const isRoot = process.getuid?.() === 0;

type Shell = { client: Client; channel: ClientChannel; output: () => string; closed: Promise<void> };

/** An SSH login through the gateway with ssh2, and a shell on the device. */
function openShell(port: number, username: string, password: string): Promise<Shell> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const closed = new Promise<void>((done) => client.once("close", () => done()));
    client.once("error", reject);
    client.once("ready", () =>
      client.shell({ term: "xterm", cols: 100, rows: 30 }, (error, channel) => {
        if (error) return reject(error);
        let output = "";
        channel.on("data", (data: Buffer) => {
          output += data.toString("utf8");
        });
        resolve({ client, channel, output: () => output, closed });
      }),
    );
    client.connect({ host: "127.0.0.1", port, username, password, readyTimeout: 20_000 });
  });
}

/** A login that the gateway refuses (a wrong password): a failed session row. */
function refusedLogin(port: number, username: string) {
  return new Promise<void>((resolve) => {
    const client = new Client();
    client.once("error", () => resolve());
    client.once("ready", () => {
      client.end();
      resolve();
    });
    client.connect({ host: "127.0.0.1", port, username, password: "not-the-password", readyTimeout: 20_000 });
  });
}

const sliderSeconds = async (page: Page) =>
  Number(await page.getByRole("slider", { name: "Playback position" }).inputValue());

test("a live session: seen live, closed by an administrator, replayed and searched", async ({
  page,
  browser,
  baseURL,
}) => {
  test.skip(!isRoot, "the agent serves this machine's accounts: root only");
  test.setTimeout(120_000);
  const account = newAccount("sessions");
  const observer = newAccount("watcher");
  cli("namespace", "member", "add", observer.username, account.namespace, "observer");
  const local = createAccount();
  const agent = startAgent(baseURL ?? "", account.tenant);
  let shell: Shell | undefined;
  try {
    const token = await apiToken(page.request, account);
    const auth = { authorization: `Bearer ${token}` };
    let uid = "";
    await expect
      .poll(async () => {
        const pending = await page.request.get("/api/devices?status=pending", { headers: auth });
        uid = ((await pending.json()) as { uid: string }[])[0]?.uid ?? "";
        return uid;
      })
      .not.toBe("");
    expect((await page.request.patch(`/api/devices/${uid}/accept`, { headers: auth })).status()).toBe(200);
    const recording = await page.request.put(`/api/users/security/${account.tenant}`, {
      headers: auth,
      data: { session_record: true },
    });
    expect(recording.status()).toBe(200);
    const { endpoints } = await (await page.request.get("/info")).json();
    const port = Number(String(endpoints.ssh).split(":").pop());
    const login = `${local.name}@${account.namespace}.${agent.hostname}`;

    await signIn(page, account);
    await page.goto("/sessions");
    await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
    await expect(page.getByText("No one is connected right now.")).toBeVisible();

    // A refused login is listed as failed, with the gateway's reason.
    await agent.tunnelUp();
    await refusedLogin(port, login);
    const history = page.getByRole("table", { name: "Sessions" });
    await expect(history.getByRole("row").filter({ hasText: "Failed" }).first()).toBeVisible({ timeout: 20_000 });

    // The live session appears without a reload.
    shell = await openShell(port, login, local.password);
    const active = page.getByRole("table", { name: "Active sessions" });
    await expect(active.getByRole("row").filter({ hasText: local.name })).toBeVisible({ timeout: 20_000 });
    // The string to find, then more output later, so that seeking to it is not the recording's end.
    shell.channel.write("echo needle-$((100+23)); sleep 2; echo later-$((1+1))\n");
    await expect.poll(() => shell?.output() ?? "", { timeout: 15_000 }).toContain("later-2");
    await expectNoSeriousA11yViolation(page);

    // An observer sees the session, but Close and Play are disabled with the reason.
    const watching = await browser.newContext();
    try {
      const observerPage = await watching.newPage();
      await signIn(observerPage, observer);
      await observerPage.goto(`/sessions?ns=${account.tenant}`);
      const row = observerPage.getByRole("table", { name: "Active sessions" }).getByRole("row").nth(1);
      await expect(row.getByRole("button", { name: /^Close/ })).toBeDisabled({ timeout: 20_000 });
      await expect(row.getByRole("button", { name: /^Close/ })).toHaveAttribute("title", /administrator/);
      await expect(row.getByText("Play")).toHaveAttribute("title", /administrator/);
    } finally {
      await watching.close();
    }

    // The administrator closes it: the SSH client's connection ends.
    await active.getByRole("button", { name: `Close the session of ${local.name} on ${agent.hostname}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Close session" }).click();
    await shell.closed;
    await expect(page.getByText("No one is connected right now.")).toBeVisible({ timeout: 20_000 });

    // The player: the search finds the typed string and seeks to it.
    await history.getByRole("row").filter({ hasText: "Logged in" }).getByRole("link", { name: "Play" }).click();
    await expect(page.getByRole("heading", { name: `${local.name} on ${agent.hostname}` })).toBeVisible();
    await page.getByRole("searchbox", { name: "Search the recording" }).fill("needle-123");
    const hits = page.getByRole("list", { name: "Matches" }).getByRole("button");
    await expect(hits.first()).toBeVisible();
    await expect(hits).toHaveCount(1);
    const [minutes, seconds] = ((await hits.locator("span").first().textContent()) ?? "").split(":").map(Number);
    await hits.click();
    await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
    // The hit's label is its whole second; the slider holds its time to a tenth (3.96 s: "0:03", 4.0).
    const hitAt = (minutes ?? 0) * 60 + (seconds ?? 0);
    const position = await sliderSeconds(page);
    expect(position).toBeGreaterThanOrEqual(hitAt);
    expect(position).toBeLessThanOrEqual(hitAt + 1);
    // The screen shows the moment of the hit: the string, not yet what came 2 s later.
    await expect.poll(() => terminalText(page)).toContain("needle-123");
    expect(await terminalText(page)).not.toContain("later-2");
    await expectNoSeriousA11yViolation(page);

    // The recording downloads as an asciicast v2 file holding the output.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download .cast" }).click(),
    ]);
    const cast = readFileSync((await download.path()) ?? "", "utf8").split("\n");
    expect(JSON.parse(cast[0] ?? "{}")).toMatchObject({ version: 2, width: 100, height: 30 });
    expect(cast.slice(1).join("\n")).toContain("needle-123");

    // A deep link opens paused at its moment.
    await page.goto(`${page.url().split("?")[0]}?t=1`);
    await expect.poll(() => sliderSeconds(page)).toBe(1);
    await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  } finally {
    shell?.client.end();
    await agent.stop();
    local.remove();
  }
});

test("an unknown session is a not-found page; a missing recording says so", async ({ page }) => {
  await signIn(page, newAccount("nosession"));
  await page.goto(`/sessions/${"0".repeat(64)}`);
  await expect(page.getByRole("heading", { name: "Session not found" })).toBeVisible();
  await page.goto("/sessions");
  await expect(page.getByText("No sessions yet.")).toBeVisible();
  await expectNoSeriousA11yViolation(page);
});
