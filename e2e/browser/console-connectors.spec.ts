import { expect, test } from "@playwright/test";
import { type DockerEngine, startDockerEngine } from "@/testing/docker-engine";
import { newAccount, signIn } from "./support/console";

// Connectors against a real Docker engine of the spec's own on the loopback (the server may dial
// it: CONNECTOR_ALLOWED_CIDRS in playwright.config.ts): the form's checks, the list, the switch,
// the detail with the engine's own info and the unencrypted warning, and delete.

let engine: DockerEngine;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  engine = await startDockerEngine();
});
test.afterAll(async () => {
  await engine?.stop();
});

test("connectors: checked form, listed, switched off, engine info on the detail, deleted", async ({ page }) => {
  const account = newAccount("engines");
  await signIn(page, account);
  await page.goto("/containers/connectors");
  await expect(page.getByRole("heading", { name: "Connectors", level: 1 })).toBeVisible();
  await expect(page.getByText("No connector yet.")).toBeVisible();
  await page.getByRole("button", { name: "Add connector" }).first().click();

  const dialog = page.getByRole("dialog", { name: "Add connector" });
  await dialog.getByLabel("Address").fill("http://engine");
  await dialog.getByLabel("Port").fill("70000");
  await dialog.getByRole("button", { name: "Add connector" }).click();
  await expect(dialog.getByText("expected a host name or an IP address")).toBeVisible();
  await expect(dialog.getByText("at most 65535")).toBeVisible();
  await expect(dialog.getByText("Add the CA certificate, the client certificate and its key")).toBeVisible();

  await dialog.getByLabel("Address").fill("127.0.0.1");
  await dialog.getByLabel("Port").fill(String(engine.port));
  await dialog.getByRole("switch", { name: /Use TLS/ }).uncheck();
  await expect(dialog.getByText(/the engine's API travels unencrypted/)).toBeVisible();
  await dialog.getByRole("button", { name: "Add connector" }).click();
  await expect(dialog).toBeHidden();

  const row = page.getByRole("row", { name: new RegExp(`127\\.0\\.0\\.1:${engine.port}`) });
  await expect(row.getByText("Unencrypted")).toBeVisible();
  await expect(row.getByText("Connected")).toBeVisible({ timeout: 30_000 });
  // The switch shows the server's answer: off once the change is saved.
  await row.getByRole("switch").click();
  await expect(row.getByRole("switch")).not.toBeChecked();
  await expect(row.getByText("disabled")).toBeVisible();

  await row.getByRole("link", { name: `127.0.0.1:${engine.port}` }).click();
  await expect(page.getByRole("heading", { name: `127.0.0.1:${engine.port}`, level: 1 })).toBeVisible();
  await expect(page.getByRole("main").getByText("Unencrypted connection.")).toBeVisible();
  const engineId = JSON.parse(await engine.docker("info", "--format", "{{json .}}")).ID;
  await expect(page.getByText(engineId)).toBeVisible();
  await expect(page.getByText("vfs")).toBeVisible();

  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete connector" }).click();
  await expect(page).toHaveURL(/\/containers\/connectors$/);
  await expect(page.getByText("No connector yet.")).toBeVisible();
});
