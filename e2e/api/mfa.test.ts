import { existsSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ApiResponse, call, uniqueName } from "@/testing/client";
import type { MailServer } from "@/testing/mail";
import { Authenticator } from "@/testing/mfa";
import { type OwnServer, withMailingServer } from "@/testing/own-server";

/**
 * TOTP multi-factor authentication over HTTP on a server of this file's own, with codes computed
 * from the secret by otplib as an authenticator app does, and reset codes read from the mails a
 * real SMTP server in this process receives. Sources come from X-Real-IP (127.0.0.1 is a trusted
 * proxy), so tests can speak from many addresses.
 */

let server: OwnServer;
let mail: MailServer;
withMailingServer(
  {
    REQUIRE_EMAIL_CONFIRMATION: "false",
    TRUSTED_PROXIES: "127.0.0.1",
  },
  (started, smtp) => {
    server = started;
    mail = smtp;
  },
);

let nextSource = 1;
const newSource = () => `192.0.2.${nextSource++}`;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every answer of this file, for the check that none carries a secret. */
const answers: { path: string; response: ApiResponse }[] = [];

type Options = { body?: unknown; token?: string; apiKey?: string; source?: string };
async function api(method: string, url: string, { source = "192.0.2.250", ...options }: Options = {}) {
  const response = await call(method, url, { ...options, baseUrl: server.url, headers: { "x-real-ip": source } });
  answers.push({ path: url, response });
  return response;
}

type User = { id: string; username: string; email: string; recoveryEmail: string; password: string; token: string };

/** A registered user (logged in) with a recovery e-mail, unless `withRecoveryEmail` is false. */
async function newUser({ withRecoveryEmail = true } = {}): Promise<User> {
  const username = uniqueName("f");
  const account = { name: "MFA Test", username, email: `${username}@example.com`, password: "secret-pass" };
  const registered = await api("POST", "/api/register", { body: account });
  expect(registered.status, registered.text).toBe(200);
  const recoveryEmail = `backup-${account.email}`;
  if (withRecoveryEmail) {
    const updated = await api("PATCH", "/api/users", {
      token: registered.body.token,
      body: { recovery_email: recoveryEmail },
    });
    expect(updated.status, updated.text).toBe(200);
  }
  return { ...account, id: registered.body.id, recoveryEmail, token: registered.body.token };
}

type Credentials = { link: string; secret: string; recovery_codes: string[]; qr_code: string };

async function generate(user: User): Promise<Credentials> {
  const response = await api("GET", "/api/user/mfa/generate", { token: user.token });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Generates and enables MFA; returns the authenticator and the recovery codes. */
async function withMfa(user: User) {
  const credentials = await generate(user);
  const authenticator = new Authenticator(credentials.secret);
  const enabled = await api("PUT", "/api/user/mfa/enable", {
    token: user.token,
    body: { code: await authenticator.next(), secret: credentials.secret, recovery_codes: credentials.recovery_codes },
  });
  expect(enabled.status, enabled.text).toBe(200);
  expect(enabled.body.mfa).toBe(true);
  return { authenticator, codes: credentials.recovery_codes, secret: credentials.secret };
}

/** The password step of an MFA user: 401 with an X-MFA-Token, which is returned. */
async function passwordStep(user: User, source?: string): Promise<string> {
  const response = await api("POST", "/api/login", {
    body: { username: user.username, password: user.password },
    source,
  });
  expect(response.status, response.text).toBe(401);
  expect(response.body).toEqual({ message: expect.stringMatching(/code/) });
  const token = response.headers.get("x-mfa-token") ?? "";
  expect(token).toMatch(uuidPattern);
  return token;
}

const authMfa = (token: string, code: string, source?: string, url = "/api/mfa/auth") =>
  api("POST", url, { body: { token, code }, source });

const wrongCode = (authenticator: Authenticator) =>
  authenticator.codeAt(0).then((code) => String((Number(code) + 1) % 1_000_000).padStart(6, "0"));

describe("generate MFA credentials", () => {
  it("gives a secret, its otpauth link with issuer and account, a QR code of it and 6 recovery codes", async () => {
    const user = await newUser();
    const credentials = await generate(user);
    expect(credentials.secret).toMatch(/^[A-Z2-7]{32}$/);
    const link = new URL(credentials.link);
    expect(link.protocol).toBe("otpauth:");
    expect(credentials.link.startsWith(`otpauth://totp/Device%20Access:${encodeURIComponent(user.email)}?`)).toBe(true);
    expect(link.searchParams.get("secret")).toBe(credentials.secret);
    expect(link.searchParams.get("issuer")).toBe("Device Access");
    expect(credentials.recovery_codes).toHaveLength(6);
    expect(new Set(credentials.recovery_codes).size).toBe(6);
    for (const code of credentials.recovery_codes) expect(code).toMatch(/^[A-Z2-9]{10}$/);
    expect(credentials.qr_code).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(credentials.qr_code.split(",")[1] ?? "", "base64");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await api("GET", "/api/auth/user", { token: user.token })).body.mfa).toBe(false);
  });
});

describe("enable MFA", () => {
  it("accepts only this user's latest generated secret and codes, with a right code and a recovery e-mail", async () => {
    const [user, other] = [await newUser(), await newUser()];
    const first = await generate(user);
    const latest = await generate(user);
    const others = await generate(other);
    const authenticator = new Authenticator(latest.secret);
    const enable = async (body: Record<string, unknown>) =>
      api("PUT", "/api/user/mfa/enable", { token: user.token, body: { code: await authenticator.codeAt(0), ...body } });
    const refusals: [string, Record<string, unknown>, number][] = [
      ["an earlier secret", { secret: first.secret, recovery_codes: first.recovery_codes }, 400],
      ["another user's secret and codes", { secret: others.secret, recovery_codes: others.recovery_codes }, 400],
      ["the secret with another user's codes", { secret: latest.secret, recovery_codes: others.recovery_codes }, 400],
      ["5 of the 6 codes", { secret: latest.secret, recovery_codes: latest.recovery_codes.slice(1) }, 400],
      ["a made-up secret", { secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", recovery_codes: latest.recovery_codes }, 400],
      [
        "a wrong code",
        { secret: latest.secret, recovery_codes: latest.recovery_codes, code: await wrongCode(authenticator) },
        401,
      ],
    ];
    for (const [label, body, status] of refusals) {
      const response = await enable(body);
      expect(response.status, `${label}: ${response.text}`).toBe(status);
    }
    expect((await api("GET", "/api/auth/user", { token: user.token })).body.mfa).toBe(false);

    const enabled = await api("PUT", "/api/user/mfa/enable", {
      token: user.token,
      body: {
        code: await authenticator.next(),
        secret: latest.secret,
        recovery_codes: [...latest.recovery_codes].reverse(),
      },
    });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ id: user.id, mfa: true });
    expect((await api("GET", "/api/auth/user", { token: user.token })).body.mfa).toBe(true);

    const again = await api("PUT", "/api/user/mfa/enable", {
      token: user.token,
      body: { code: await authenticator.next(), secret: latest.secret, recovery_codes: latest.recovery_codes },
    });
    expect(again.status).toBe(409);
    expect((await api("GET", "/api/user/mfa/generate", { token: user.token })).status).toBe(409);
  });

  it("needs a recovery e-mail", async () => {
    const user = await newUser({ withRecoveryEmail: false });
    const credentials = await generate(user);
    const response = await api("PUT", "/api/user/mfa/enable", {
      token: user.token,
      body: {
        code: await new Authenticator(credentials.secret).next(),
        secret: credentials.secret,
        recovery_codes: credentials.recovery_codes,
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/recovery e-mail/);
    expect((await api("GET", "/api/auth/user", { token: user.token })).body.mfa).toBe(false);
  });
});

describe("MFA login", () => {
  it("turns the password step into an X-MFA-Token that grants nothing but Auth MFA, single use", async () => {
    const user = await newUser();
    const { authenticator } = await withMfa(user);
    const login = await api("POST", "/api/login", { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(401);
    expect(Object.keys(login.body)).toEqual(["message"]);
    const mfaToken = login.headers.get("x-mfa-token") ?? "";
    expect(mfaToken).toMatch(uuidPattern);
    expect(login.headers.get("x-account-lockout")).toBe("0");

    // The MFA token is no credential.
    expect((await api("GET", "/api/auth/user", { token: mfaToken })).status).toBe(401);
    expect((await api("GET", "/api/auth/user", { apiKey: mfaToken })).status).toBe(401);
    expect((await api("GET", "/api/user/mfa/generate", { token: mfaToken })).status).toBe(401);

    const wrong = await authMfa(mfaToken, await wrongCode(authenticator));
    expect(wrong.status).toBe(401);
    const code = await authenticator.next();
    const passed = await authMfa(mfaToken, code);
    expect(passed.status, passed.text).toBe(200);
    expect(passed.body).toMatchObject({ id: user.id, user: user.username, mfa: true, token: expect.any(String) });
    expect(passed.headers.get("x-account-lockout")).toBe("0");
    expect((await api("GET", "/api/auth/user", { token: passed.body.token })).status).toBe(200);

    // The token is used up; a new one does not take the same code again (no replay in its window).
    expect((await authMfa(mfaToken, await authenticator.next())).status).toBe(401);
    const second = await passwordStep(user);
    const replay = await authMfa(second, code);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe("invalid code");
    // The alias path takes a later code.
    const viaAlias = await authMfa(second, await authenticator.next(), undefined, "/api/user/mfa/auth");
    expect(viaAlias.status, viaAlias.text).toBe(200);
    expect(viaAlias.body.mfa).toBe(true);
  });

  it("kills an X-MFA-Token after five wrong codes, from any sources", async () => {
    const user = await newUser();
    const { authenticator } = await withMfa(user);
    const token = await passwordStep(user);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await authMfa(token, await wrongCode(authenticator), newSource());
      expect(response.status, `attempt ${attempt}`).toBe(401);
      expect(response.body.message, `attempt ${attempt}`).toBe("invalid code");
    }
    const right = await authMfa(token, await authenticator.next(), newSource());
    expect(right.status).toBe(401);
    expect(right.body.message).toMatch(/invalid or expired MFA token/);
    expect(right.body).not.toHaveProperty("token");
  });

  it("never counts the right password as a failure: a person back at the password step is not locked out", async () => {
    const user = await newUser();
    const { authenticator } = await withMfa(user);
    const source = newSource();
    // More right passwords than the lockout's 3 failures, each answered with a new MFA token.
    for (let attempt = 1; attempt <= 4; attempt++) await passwordStep(user, source);
    // A wrong password in between starts from zero, and the next right one clears it again.
    const wrong = await api("POST", "/api/login", { body: { username: user.username, password: "wrong" }, source });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("x-account-lockout")).toBe("0");
    const token = await passwordStep(user, source);
    const passed = await authMfa(token, await authenticator.next(), source);
    expect(passed.status, passed.text).toBe(200);
  });

  it("counts wrong codes in a lockout of the code step: new tokens do not reset it, the password step stays open", async () => {
    const user = await newUser();
    const { authenticator } = await withMfa(user);
    const source = newSource();
    const first = await passwordStep(user, source);
    for (const attempt of [1, 2]) {
      const wrong = await authMfa(first, await wrongCode(authenticator), source);
      expect(wrong.status, `attempt ${attempt}`).toBe(401);
      expect(wrong.headers.get("x-account-lockout"), `attempt ${attempt}`).toBe("0");
    }
    // A right password and a new token in between change nothing: the third wrong code locks.
    const second = await passwordStep(user, source);
    const locking = await authMfa(second, await wrongCode(authenticator), source);
    expect(locking.status).toBe(401);
    const until = Number(locking.headers.get("x-account-lockout"));
    expect(until).toBeGreaterThan(Date.now() / 1000);
    // While locked, the code is not even looked at.
    const locked = await authMfa(second, await authenticator.codeAt(0), source);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("x-account-lockout")).toBe(String(until));
    // The password step is not locked; its token meets the same locked code step.
    const third = await passwordStep(user, source);
    expect((await authMfa(third, await authenticator.codeAt(0), source)).status).toBe(429);
    // Another source is not locked.
    const elsewhere = newSource();
    const passed = await authMfa(await passwordStep(user, elsewhere), await authenticator.next(), elsewhere);
    expect(passed.status, passed.text).toBe(200);
  });
});

describe("recovery codes and disabling", () => {
  it("logs in with a recovery code once, which then disables MFA for 10 minutes", async () => {
    const user = await newUser();
    const { codes } = await withMfa(user);
    const [code = ""] = codes;
    const wrong = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: user.username, recovery_code: "WRONGCODE2" },
    });
    expect(wrong.status).toBe(401);
    const unknown = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: uniqueName("x"), recovery_code: code },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);

    const before = Math.floor(Date.now() / 1000);
    const recovered = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: user.email, recovery_code: code.toLowerCase() },
    });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body).toMatchObject({ id: user.id, mfa: true, token: expect.any(String) });
    const expiresAt = Number(recovered.headers.get("x-expires-at"));
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600 - 2);
    expect(expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 600 + 2);
    const twice = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: user.username, recovery_code: code },
    });
    expect(twice.status).toBe(401);

    const disabled = await api("PUT", "/api/user/mfa/disable", {
      token: recovered.body.token,
      body: { recovery_code: code },
    });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.mfa).toBe(false);
    const login = await api("POST", "/api/login", { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(200);
    expect(login.headers.get("x-mfa-token")).toBeNull();
  });

  it("disables with a current code or an unused recovery code, never with a wrong one", async () => {
    const [byCode, byRecovery] = [await newUser(), await newUser()];
    const first = await withMfa(byCode);
    const second = await withMfa(byRecovery);
    const wrong = await api("PUT", "/api/user/mfa/disable", {
      token: byCode.token,
      body: { code: await wrongCode(first.authenticator) },
    });
    expect(wrong.status).toBe(401);
    const othersCode = await api("PUT", "/api/user/mfa/disable", {
      token: byCode.token,
      body: { recovery_code: second.codes[0] },
    });
    expect(othersCode.status).toBe(401);
    const neither = await api("PUT", "/api/user/mfa/disable", { token: byCode.token, body: {} });
    expect(neither.status).toBe(400);

    const viaCode = await api("PUT", "/api/user/mfa/disable", {
      token: byCode.token,
      body: { code: await first.authenticator.next() },
    });
    expect(viaCode.status, viaCode.text).toBe(200);
    expect(viaCode.body.mfa).toBe(false);
    const viaRecovery = await api("PUT", "/api/user/mfa/disable", {
      token: byRecovery.token,
      body: { recovery_code: second.codes[5] },
    });
    expect(viaRecovery.status, viaRecovery.text).toBe(200);
    const notEnabled = await api("PUT", "/api/user/mfa/disable", {
      token: byRecovery.token,
      body: { recovery_code: second.codes[4] },
    });
    expect(notEnabled.status).toBe(400);
    // The old recovery codes died with MFA: they do not log in after MFA is enabled again.
    await withMfa(byRecovery);
    const stale = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: byRecovery.username, recovery_code: second.codes[3] },
    });
    expect(stale.status).toBe(401);
  });
});

/** The reset code a mail to `to` carries, for `field`. */
async function resetCode(to: string, after: number) {
  const received = await mail.waitFor(to, (m) => m.subject.includes("two-factor") && mail.mails.indexOf(m) >= after);
  return /\((main_email_code|recovery_email_code)\): ([A-Z2-9]{10})/.exec(received.text)?.[2] ?? "";
}

describe("MFA reset by e-mail", () => {
  it("mails one code to each address; both and the user id turn MFA off, once", async () => {
    const [user, other] = [await newUser(), await newUser()];
    await withMfa(user);
    await withMfa(other);
    const before = mail.mails.length;
    const asked = await api("POST", "/api/user/mfa/reset", {
      body: { identifier: user.username },
      source: newSource(),
    });
    expect(asked.status, asked.text).toBe(200);
    const unknown = await api("POST", "/api/user/mfa/reset", {
      body: { identifier: uniqueName("x") },
      source: newSource(),
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(asked.body);
    const main = await resetCode(user.email, before);
    const recovery = await resetCode(user.recoveryEmail, before);
    expect(main).not.toBe(recovery);

    const reset = (id: string, body: Record<string, string>) =>
      api("PUT", `/api/user/mfa/reset/${id}`, { body, source: newSource() });
    expect((await reset(user.id, { main_email_code: main, recovery_email_code: "WRONGCODE2" })).status).toBe(401);
    expect((await reset(user.id, { main_email_code: recovery, recovery_email_code: main })).status).toBe(401);
    expect((await reset(other.id, { main_email_code: main, recovery_email_code: recovery })).status).toBe(401);
    expect((await api("GET", "/api/auth/user", { token: other.token })).body.mfa).toBe(true);

    const done = await reset(user.id, { main_email_code: main.toLowerCase(), recovery_email_code: recovery });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ id: user.id, mfa: false, token: expect.any(String) });
    expect((await reset(user.id, { main_email_code: main, recovery_email_code: recovery })).status).toBe(401);
    const login = await api("POST", "/api/login", { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(200);
  });
});

describe("MFA reset rate limit", () => {
  it("mails reset codes for one account at most 5 times an hour, from any sources; unknown names alike", async () => {
    const user = await newUser();
    await withMfa(user);
    const name = uniqueName("ghost");
    for (let round = 1; round <= 5; round++) {
      const known = await api("POST", "/api/user/mfa/reset", {
        body: { identifier: user.username },
        source: newSource(),
      });
      expect(known.status, `round ${round}`).toBe(200);
      const unknown = await api("POST", "/api/user/mfa/reset", { body: { identifier: name }, source: newSource() });
      expect(unknown.status, `round ${round}`).toBe(200);
    }
    const known = await api("POST", "/api/user/mfa/reset", { body: { identifier: user.email }, source: newSource() });
    expect(known.status).toBe(429);
    const unknown = await api("POST", "/api/user/mfa/reset", { body: { identifier: name }, source: newSource() });
    expect(unknown.status).toBe(429);
    expect(unknown.body).toEqual(known.body);
  });
});

describe("expiry and secrets at rest", () => {
  it("ends X-MFA-Tokens after 5 minutes, reset codes after a day, the recovery-code window after 10 minutes", async () => {
    const [tokenUser, resetUser, recoverUser] = [await newUser(), await newUser(), await newUser()];
    const tokenMfa = await withMfa(tokenUser);
    const mfaToken = await passwordStep(tokenUser);
    await withMfa(resetUser);
    const before = mail.mails.length;
    await api("POST", "/api/user/mfa/reset", { body: { identifier: resetUser.email }, source: newSource() });
    const codes = {
      main_email_code: await resetCode(resetUser.email, before),
      recovery_email_code: await resetCode(resetUser.recoveryEmail, before),
    };
    const recoverMfa = await withMfa(recoverUser);
    const recovered = await api("POST", "/api/user/mfa/recover", {
      body: { identifier: recoverUser.username, recovery_code: recoverMfa.codes[0] },
    });
    expect(recovered.status).toBe(200);

    const rows = await server.query(
      sql`update user_tokens set expires_at = expires_at - interval '5 minutes 1 second'
          where purpose = 'mfa_login' and user_id = ${tokenUser.id}`,
      sql`update user_tokens set expires_at = expires_at - interval '1 day 1 second'
          where purpose in ('mfa_reset_main', 'mfa_reset_recovery') and user_id = ${resetUser.id}`,
      sql`update mfa_recovery_codes set used_at = used_at - interval '10 minutes 1 second'
          where used_at is not null and user_id = ${recoverUser.id}`,
      sql`select mfa_secret from users where id = ${tokenUser.id}`,
    );

    const late = await authMfa(mfaToken, await tokenMfa.authenticator.next());
    expect(late.status).toBe(401);
    expect(late.body.message).toMatch(/invalid or expired MFA token/);
    const lateReset = await api("PUT", `/api/user/mfa/reset/${resetUser.id}`, { body: codes, source: newSource() });
    expect(lateReset.status).toBe(401);
    const lateDisable = await api("PUT", "/api/user/mfa/disable", {
      token: recovered.body.token,
      body: { recovery_code: recoverMfa.codes[0] },
    });
    expect(lateDisable.status).toBe(401);
    expect((await api("GET", "/api/auth/user", { token: recoverUser.token })).body.mfa).toBe(true);

    // The TOTP secret is stored encrypted with the key generated into DATA_DIR.
    const stored = String(rows[0]?.mfa_secret);
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(tokenMfa.secret);
    expect(existsSync(path.join(server.data.DATA_DIR, "mfa.key"))).toBe(true);
  });

  it("never answers with a password hash, or a TOTP secret or recovery code after generating it", async () => {
    const user = await newUser();
    const { authenticator, codes, secret } = await withMfa(user);
    const generatedAt = answers.length;
    const token = await passwordStep(user);
    const session = await authMfa(token, await authenticator.next());
    await api("GET", "/api/auth/user", { token: session.body.token });
    await api("PATCH", "/api/users", { token: session.body.token, body: { name: "Renamed" } });
    await api("POST", "/api/user/mfa/recover", { body: { identifier: user.username, recovery_code: codes[1] } });
    await api("PUT", "/api/user/mfa/disable", { token: session.body.token, body: { recovery_code: codes[2] } });
    const everything = answers
      .slice(generatedAt)
      .map(({ response }) => [response.text, ...response.headers.values()].join("\n"));
    for (const text of everything) {
      expect(text).not.toContain(secret);
      for (const code of codes) expect(text).not.toContain(code);
    }
    for (const { response } of answers) expect(response.text).not.toMatch(/\$argon2|mfa_secret|token_hash|code_hash/);
  });
});
