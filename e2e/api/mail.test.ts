import { afterEach, describe, expect, it } from "vitest";
import { cli, expectError, expectOk } from "@/testing/cli";
import { call, uniqueName } from "@/testing/client";
import { linkIn, type MailServer, startMailServer } from "@/testing/mail";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { freePort } from "@/testing/server";

/**
 * Mail delivery over HTTP on servers of the tests' own: the embedded outbox (no SMTP_URL) read
 * from the log and with `npm run cli -- mail list / mail show`, and a real SMTP server in this
 * process (smtp-server) that refuses some deliveries, or none at all.
 */

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const newAccount = () => {
  const username = uniqueName("m");
  return { name: "Mail Test", username, email: `${username}@example.com`, password: "secret-pass" };
};

let server: OwnServer | undefined;
let mail: MailServer | undefined;
afterEach(async () => {
  await server?.stop();
  await mail?.close();
  server = undefined;
  mail = undefined;
});

/** The outbox line of the mail to `recipient`, from `mail list`, split in its columns. */
async function outboxLine(own: OwnServer, recipient: string) {
  const listed = await expectOk(cli(own.data, "mail", "list"), new RegExp(recipient));
  const line = listed.split("\n").find((candidate) => candidate.includes(recipient)) ?? "";
  const [id = "", date = "", status = ""] = line.split(/\s+/);
  return { id, date, status, line };
}

describe("the embedded outbox (no SMTP_URL)", () => {
  it("keeps the activation mail, logs its link, and the CLI lists and shows it; the link activates the account", async () => {
    server = await startOwnServer({
      REQUIRE_EMAIL_CONFIRMATION: "true",
      LOG_LEVEL: "info",
      PUBLIC_URL: "http://devices.example.test:8080",
    });
    const account = newAccount();
    const registered = await call("POST", "/api/register", { baseUrl: server.url, body: account });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.body).toEqual({ message: expect.stringMatching(/e-mail/) });

    const refused = await call("POST", "/api/login", {
      baseUrl: server.url,
      body: { username: account.username, password: account.password },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/not confirmed/);

    // The log line carries the link, built from PUBLIC_URL.
    const logLine = server
      .output()
      .split("\n")
      .find((line) => line.includes("mail kept in the outbox") && line.includes(account.email));
    expect(logLine).toBeDefined();
    const logged = JSON.parse(logLine ?? "{}");
    expect(logged.text).toContain("http://devices.example.test:8080/validation-account?");

    const entry = await outboxLine(server, account.email);
    expect(entry.id).toMatch(uuidPattern);
    expect(entry.status).toBe("kept");
    expect(entry.line).toContain("Activate your account");

    const shown = await expectOk(cli(server.data, "mail", "show", entry.id), /Subject: Activate your account/);
    expect(shown).toContain(`To: ${account.email}`);
    expect(shown).toContain("Status: kept");
    const link = shown.split(/\s+/).find((word) => word.startsWith("http://devices.example.test:8080/")) ?? "";
    expect(link).toBe(logged.text.split(/\s+/).find((word: string) => word.startsWith("http://devices")));

    // The link opens the activation page, which calls the API with the link's query.
    const url = new URL(link);
    expect(url.pathname).toBe("/validation-account");
    const activated = await call("GET", `/api/user/validation_account${url.search}`, { baseUrl: server.url });
    expect(activated.status, activated.text).toBe(200);
    const login = await call("POST", "/api/login", {
      baseUrl: server.url,
      body: { username: account.username, password: account.password },
    });
    expect(login.status, login.text).toBe(200);
    expect(login.body.token).toEqual(expect.any(String));

    await expectError(cli(server.data, "mail", "show", "00000000-0000-4000-8000-000000000000"), 1, /not found/);
    await expectError(cli(server.data, "mail", "show", "not-a-uuid"), 2, /invalid mail id/);
  });

  it("keeps registration as it was while confirmation is off (the default without SMTP_URL): no mail", async () => {
    server = await startOwnServer();
    const account = newAccount();
    const registered = await call("POST", "/api/register", { baseUrl: server.url, body: account });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.body).toMatchObject({ user: account.username, email: account.email, mfa: false });
    expect(registered.body.token).toEqual(expect.any(String));
    await expectOk(cli(server.data, "mail", "list"), /^no mail$/m);
  });
});

describe("SMTP delivery", () => {
  it("retries after temporary failures without holding the request, and records the delivery", async () => {
    mail = await startMailServer({ rejectFirst: 2 });
    server = await startOwnServer({
      SMTP_URL: mail.url,
      MAIL_FROM: "Devices <devices@example.test>",
      MAIL_RETRY_SECONDS: "1",
      REQUIRE_EMAIL_CONFIRMATION: "false",
      PUBLIC_URL: "https://devices.example.test",
    });
    const account = newAccount();
    expect((await call("POST", "/api/register", { baseUrl: server.url, body: account })).status).toBe(200);
    const asked = await call("POST", "/api/user/recover_password", {
      baseUrl: server.url,
      body: { email: account.email },
    });
    expect(asked.status, asked.text).toBe(200);
    // The answer came before any delivery succeeded.
    expect(mail.mails).toEqual([]);

    const received = await mail.waitFor(account.email);
    expect(received.from).toBe("devices@example.test");
    expect(received.subject).toBe("Reset your password");
    const link = linkIn(received, "https://devices.example.test/");
    expect(link.pathname).toBe("/update-password");
    expect(received.html).toContain(`href="https://devices.example.test/update-password?`);
    expect(received.html).toContain(link.searchParams.get("token"));

    const entry = await outboxLine(server, account.email);
    expect(entry.status).toBe("sent");
    const shown = await expectOk(cli(server.data, "mail", "show", entry.id), /Status: sent after 3 attempt\(s\)/);
    // Delivered mail keeps no body: its link is a credential until used.
    expect(shown).toContain("(body removed once delivered)");
    expect(shown).not.toContain(link.searchParams.get("token"));
  });

  it("answers at once when the mail server is down, and records the failure after the last attempt", async () => {
    server = await startOwnServer({
      SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
      MAIL_RETRY_SECONDS: "1",
      MAIL_MAX_ATTEMPTS: "2",
    });
    const account = newAccount();
    // SMTP_URL turns confirmation on by default.
    const registered = await call("POST", "/api/register", { baseUrl: server.url, body: account });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.body).toEqual({ message: expect.any(String) });

    const deadline = Date.now() + 120_000;
    let entry = await outboxLine(server, account.email);
    while (entry.status !== "failed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      entry = await outboxLine(server, account.email);
    }
    expect(entry.status).toBe("failed");
    const shown = await expectOk(cli(server.data, "mail", "show", entry.id), /Status: failed after 2 attempt\(s\)/);
    expect(shown).toMatch(/Last error: .*ECONNREFUSED/);
  });
});
