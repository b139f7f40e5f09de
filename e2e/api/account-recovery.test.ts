import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cli } from "@/testing/cli";
import { call, uniqueName } from "@/testing/client";
import { linkIn, type MailServer, type ReceivedMail } from "@/testing/mail";
import { type OwnServer, withMailingServer } from "@/testing/own-server";

/**
 * Activation, resend, password recovery and the recovery e-mail, over HTTP on a server of this
 * file's own that mails through a real SMTP server in this process (confirmation on, the
 * default with SMTP_URL). Each test speaks from its own source address (X-Real-IP from the
 * trusted 127.0.0.1), so the per-source mail limit counts each test apart.
 */

let server: OwnServer;
let mail: MailServer;
withMailingServer(
  {
    TRUSTED_PROXIES: "127.0.0.1",
    MAIL_REQUESTS_PER_HOUR_PER_SOURCE: "10",
    PUBLIC_URL: "https://devices.example.test",
  },
  (started, smtp) => {
    server = started;
    mail = smtp;
  },
);

let nextSource = 1;
const newSource = () => `198.51.100.${nextSource++}`;

type Options = { body?: unknown; token?: string; source?: string };
const api = (method: string, path: string, { source = "198.51.100.250", ...options }: Options = {}) =>
  call(method, path, { ...options, baseUrl: server.url, headers: { "x-real-ip": source } });

const newAccount = () => {
  const username = uniqueName("r");
  return { name: "Recovery Test", username, email: `${username}@example.com`, password: "secret-pass" };
};

/** Registers an account and returns it with its activation mail. */
async function register(source: string) {
  const account = newAccount();
  const registered = await api("POST", "/api/register", { body: account, source });
  expect(registered.status, registered.text).toBe(200);
  expect(registered.body).toEqual({ message: expect.any(String) });
  const activation = await mail.waitFor(account.email, (m) => m.subject === "Activate your account");
  return { ...account, activation };
}

/** The activation page's link, as the API call the page makes with its query. */
const activationPath = (received: ReceivedMail) => {
  const link = linkIn(received, "https://devices.example.test/validation-account");
  return `/api/user/validation_account${link.search}`;
};

const login = (username: string, password: string, source?: string) =>
  api("POST", "/api/login", { body: { username, password }, source });

/** How many mails the outbox holds for `recipient` (`npm run cli -- mail list`). */
async function outboxCount(recipient: string) {
  const listed = await cli(server.data, "mail", "list");
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout.split("\n").filter((line) => line.includes(` ${recipient} `)).length;
}

async function activate(account: { activation: ReceivedMail }) {
  const activated = await api("GET", activationPath(account.activation));
  expect(activated.status, activated.text).toBe(200);
}

/** A recovery mail for `email`, the uid and token its link carries. */
async function recoveryLink(email: string, after = 0) {
  const received = await mail.waitFor(
    email,
    (m) => m.subject === "Reset your password" && mail.mails.indexOf(m) >= after,
  );
  const link = linkIn(received, "https://devices.example.test/update-password");
  return { uid: link.searchParams.get("id") ?? "", token: link.searchParams.get("token") ?? "", received };
}

describe("activation", () => {
  it("refuses login until the single-use link of the activation mail is followed", async () => {
    const source = newSource();
    const account = await register(source);
    expect(account.activation.text).toMatch(/24 hours/);
    expect(account.activation.html).toContain('href="https://devices.example.test/validation-account?');

    const early = await login(account.username, account.password, source);
    expect(early.status).toBe(403);
    expect(early.body).toEqual({ message: expect.stringMatching(/not confirmed/) });
    expect(early.body).not.toHaveProperty("token");

    const wrong = await api("GET", `/api/user/validation_account?email=${account.email}&token=wrong-token`);
    expect(wrong.status).toBe(401);
    const link = linkIn(account.activation, "https://devices.example.test/validation-account");
    link.searchParams.set("email", `x${account.email}`);
    expect((await api("GET", `/api/user/validation_account${link.search}`)).status).toBe(401);

    await activate(account);
    const again = await api("GET", activationPath(account.activation));
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ message: expect.stringMatching(/invalid or expired/) });

    const later = await login(account.username, account.password, source);
    expect(later.status, later.text).toBe(200);
    expect(later.body).toMatchObject({ user: account.username, email: account.email, mfa: false });
  });

  it("resends a new link that replaces the old one; unknown and confirmed users get the same answer and no mail", async () => {
    const source = newSource();
    const account = await register(source);
    const resent = await api("POST", "/api/user/resend_email", { body: { username: account.username }, source });
    expect(resent.status, resent.text).toBe(200);
    const second = await mail.waitFor(
      account.email,
      (m) => m.subject === "Activate your account" && m !== account.activation,
    );
    expect(activationPath(second)).not.toBe(activationPath(account.activation));
    expect((await api("GET", activationPath(account.activation))).status).toBe(401);
    await activate({ activation: second });

    const unknown = await api("POST", "/api/user/resend_email", { body: { username: uniqueName("nobody") }, source });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(resent.body);
    const confirmed = await api("POST", "/api/user/resend_email", { body: { username: account.username }, source });
    expect(confirmed.body).toEqual(resent.body);
    expect(await outboxCount(account.email)).toBe(2);
  });
});

describe("the mails' links", () => {
  it("open pages of the service (ShellHub's routes, /reset-password kept) that use up nothing when fetched", async () => {
    const source = newSource();
    const account = await register(source);
    const activationLink = linkIn(account.activation, "https://devices.example.test/validation-account");
    const activationPage = await api("GET", `${activationLink.pathname}${activationLink.search}`);
    expect(activationPage.status).toBe(200);
    expect(activationPage.headers.get("content-type")).toMatch(/^text\/html/);
    expect(activationPage.text).toContain("Activate your account");
    // The page activates from the browser: a mail scanner fetching the link leaves the token alive.
    await activate(account);

    const before = mail.mails.length;
    await api("POST", "/api/user/recover_password", { body: { username: account.username }, source });
    const { uid, token } = await recoveryLink(account.email, before);
    for (const path of [`/update-password?id=${uid}&token=${token}`, `/reset-password?uid=${uid}&token=${token}`]) {
      const page = await api("GET", path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.text).toContain("Choose a new password");
      expect(page.text).not.toContain("This link is incomplete");
    }
  });
});

describe("password recovery", () => {
  it("mails a single-use link by username or e-mail that sets a new password", async () => {
    const source = newSource();
    const account = await register(source);
    await activate(account);
    const before = mail.mails.length;
    const asked = await api("POST", "/api/user/recover_password", { body: { username: account.username }, source });
    expect(asked.status, asked.text).toBe(200);
    const { uid, token, received } = await recoveryLink(account.email, before);
    expect(received.text).toMatch(/1 hour/);
    expect(received.html).toContain("https://devices.example.test/update-password?");

    const wrongToken = await api("POST", `/api/user/${uid}/update_password`, {
      body: { password: "new-secret", token: "nope" },
    });
    expect(wrongToken.status).toBe(401);
    const session = await login(account.username, account.password, source);
    expect(uid).toBe(session.body.id);
    // Another user's id with this token is refused too.
    const wrongUser = await api("POST", `/api/user/${crypto.randomUUID()}/update_password`, {
      body: { password: "new-secret", token },
    });
    expect(wrongUser.status).toBe(401);

    const changed = await api("POST", `/api/user/${uid}/update_password`, { body: { password: "new-secret", token } });
    expect(changed.status, changed.text).toBe(200);
    expect((await login(account.username, account.password, source)).status).toBe(401);
    expect((await login(account.username, "new-secret", source)).status).toBe(200);
    const reused = await api("POST", `/api/user/${uid}/update_password`, { body: { password: "other-secret", token } });
    expect(reused.status).toBe(401);

    // By e-mail too; a second request replaces the first link.
    const start = mail.mails.length;
    await api("POST", "/api/user/recover_password", { body: { email: account.email }, source });
    const first = await recoveryLink(account.email, start);
    const next = mail.mails.length;
    await api("POST", "/api/user/recover_password", { body: { email: account.email }, source });
    const latest = await recoveryLink(account.email, next);
    const stale = await api("POST", `/api/user/${uid}/update_password`, {
      body: { password: "other-secret", token: first.token },
    });
    expect(stale.status).toBe(401);
    expect(
      (
        await api("POST", `/api/user/${uid}/update_password`, {
          body: { password: "third-secret", token: latest.token },
        })
      ).status,
    ).toBe(200);
    expect((await login(account.email, "third-secret", source)).status).toBe(200);
  });

  it("kills the recovery link when the password changes another way", async () => {
    const source = newSource();
    const account = await register(source);
    await activate(account);
    const before = mail.mails.length;
    await api("POST", "/api/user/recover_password", { body: { username: account.username }, source });
    const { uid, token } = await recoveryLink(account.email, before);
    const session = await login(account.username, account.password, source);
    const patched = await api("PATCH", "/api/users", {
      token: session.body.token,
      body: { password: "changed-secret", current_password: account.password },
    });
    expect(patched.status, patched.text).toBe(200);
    const late = await api("POST", `/api/user/${uid}/update_password`, { body: { password: "x-secret", token } });
    expect(late.status).toBe(401);
    expect((await login(account.username, "changed-secret", source)).status).toBe(200);
  });

  it("answers unknown users exactly like known ones and mails nobody", async () => {
    const source = newSource();
    const account = await register(source);
    await activate(account);
    const known = await api("POST", "/api/user/recover_password", { body: { username: account.username }, source });
    const unknownName = await api("POST", "/api/user/recover_password", {
      body: { username: uniqueName("no") },
      source,
    });
    const unknownMail = await api("POST", "/api/user/recover_password", {
      body: { email: `${uniqueName("no")}@example.com` },
      source,
    });
    for (const response of [unknownName, unknownMail]) {
      expect(response.status).toBe(known.status);
      expect(response.body).toEqual(known.body);
    }
    const listed = await cli(server.data, "mail", "list");
    expect(listed.stdout).not.toMatch(/ no[0-9a-f]{10}/);
  });
});

describe("mail rate limits", () => {
  it("limits mails per account (5 an hour) and answers unknown names alike", async () => {
    const source = newSource();
    const account = await register(source);
    await activate(account);
    const name = uniqueName("ghost");
    for (let round = 1; round <= 5; round++) {
      // Several sources, so that only the per-account count is reached.
      const known = await api("POST", "/api/user/recover_password", {
        body: { username: account.username },
        source: `203.0.113.${round}`,
      });
      expect(known.status, `round ${round}`).toBe(200);
      const unknown = await api("POST", "/api/user/recover_password", {
        body: { username: name },
        source: `203.0.113.${round}`,
      });
      expect(unknown.status, `round ${round}`).toBe(200);
    }
    const known = await api("POST", "/api/user/recover_password", { body: { email: account.email }, source });
    expect(known.status).toBe(429);
    expect(Number(known.headers.get("retry-after"))).toBeGreaterThan(0);
    const resend = await api("POST", "/api/user/resend_email", { body: { username: account.username }, source });
    expect(resend.status).toBe(429);
    const unknown = await api("POST", "/api/user/recover_password", { body: { username: name }, source });
    expect(unknown.status).toBe(429);
    expect(unknown.body).toEqual(known.body);
    // Registration mail, recovery and resend count together: 1 + 5 recovery mails reached the inbox.
    expect(await outboxCount(account.email)).toBe(6);
  });

  it("limits mail requests per source (here 10 an hour), for registration too", async () => {
    const source = newSource();
    for (let round = 1; round <= 10; round++) {
      const response = await api("POST", "/api/user/recover_password", { body: { username: uniqueName("s") }, source });
      expect(response.status, `round ${round}`).toBe(200);
    }
    const refused = await api("POST", "/api/register", { body: newAccount(), source });
    expect(refused.status).toBe(429);
    const otherSource = await api("POST", "/api/user/recover_password", {
      body: { username: uniqueName("s") },
      source: newSource(),
    });
    expect(otherSource.status).toBe(200);
  });
});

describe("recovery e-mail", () => {
  it("is set by update user, must differ from the e-mail, and cannot be emptied once set", async () => {
    const source = newSource();
    const account = await register(source);
    await activate(account);
    const { token } = (await login(account.username, account.password, source)).body;
    const same = await api("PATCH", "/api/users", { token, body: { recovery_email: account.email } });
    expect(same.status).toBe(400);
    expect(same.body).toEqual(["recovery_email"]);
    const set = await api("PATCH", "/api/users", { token, body: { recovery_email: `backup-${account.email}` } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.recovery_email).toBe(`backup-${account.email}`);
    const emptied = await api("PATCH", "/api/users", { token, body: { recovery_email: "" } });
    expect(emptied.status).toBe(400);
    expect(emptied.body).toEqual(["recovery_email"]);
    const swapped = await api("PATCH", "/api/users", { token, body: { email: `backup-${account.email}` } });
    expect(swapped.status).toBe(400);
    expect(swapped.body).toEqual(["email"]);
    const me = await api("GET", "/api/auth/user", { token });
    expect(me.body.recovery_email).toBe(`backup-${account.email}`);
  });
});

describe("expiry", () => {
  it("activation links live 24 hours and recovery links 1 hour; only hashes are stored", async () => {
    const source = newSource();
    const [fresh, stale] = [await register(source), await register(source)];
    const [early, late] = [await register(source), await register(source)];
    for (const account of [early, late]) {
      await activate(account);
      const before = mail.mails.length;
      await api("POST", "/api/user/recover_password", { body: { username: account.username }, source });
      Object.assign(account, { recovery: await recoveryLink(account.email, before) });
    }
    const age = (email: string, purpose: string, minutes: number) =>
      sql`update user_tokens set expires_at = expires_at - make_interval(mins => ${minutes}),
          created_at = created_at - make_interval(mins => ${minutes})
          where purpose = ${purpose} and user_id = (select id from users where email = ${email})`;
    const stored = await server.query(
      age(fresh.email, "activation", 23 * 60),
      age(stale.email, "activation", 24 * 60 + 1),
      age(early.email, "password_reset", 59),
      age(late.email, "password_reset", 61),
      sql`select token_hash from user_tokens`,
    );

    expect((await api("GET", activationPath(stale.activation))).status).toBe(401);
    expect((await login(stale.username, stale.password, source)).status).toBe(403);
    expect((await api("GET", activationPath(fresh.activation))).status).toBe(200);

    const use = (account: typeof early) => {
      const { uid, token } = (account as typeof early & { recovery: { uid: string; token: string } }).recovery;
      return api("POST", `/api/user/${uid}/update_password`, { body: { password: "after-aging", token } });
    };
    expect((await use(late)).status).toBe(401);
    expect((await use(early)).status).toBe(200);

    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    const freshToken = new URL(linkIn(fresh.activation, "https://")).searchParams.get("token") ?? "";
    const hashes = stored.map((row) => row.token_hash);
    expect(hashes).toContain(sha256(freshToken));
    expect(hashes).not.toContain(freshToken);
  });
});
