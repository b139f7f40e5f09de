import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, call, uniqueName } from "@/testing/client";
import { createTestDatabase } from "@/testing/database";
import { seedUser } from "@/testing/seeds/users";
import { type RunningServer, startServer } from "@/testing/server";

type LoginOptions = { path?: string; realIp?: string; headers?: Record<string, string>; baseUrl?: string };

function login(username: string, password: string, options: LoginOptions = {}) {
  const headers = { ...options.headers };
  if (options.realIp) headers["x-real-ip"] = options.realIp;
  return call("POST", options.path ?? "/api/login", {
    body: { username, password },
    headers,
    baseUrl: options.baseUrl,
  });
}

const lockout = (response: ApiResponse) => response.headers.get("x-account-lockout");
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Asserts a 401 whose lockout header is an epoch about one minute ahead, and returns it. */
function expectLockedFor1Minute(response: ApiResponse, before: number): number {
  expect(response.status).toBe(401);
  const until = Number(lockout(response));
  expect(until).toBeGreaterThanOrEqual(before + 59);
  expect(until).toBeLessThanOrEqual(nowSeconds() + 61);
  return until;
}

/** Three wrong passwords: 401 with 0, 401 with 0, then 401 with the lock end, which is returned. */
async function lockOut(identifier: string, options: LoginOptions = {}): Promise<number> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    const response = await login(identifier, "wrong-password", options);
    expect(response.status, `attempt ${attempt}`).toBe(401);
    expect(lockout(response), `attempt ${attempt}`).toBe("0");
  }
  const before = nowSeconds();
  return expectLockedFor1Minute(await login(identifier, "wrong-password", options), before);
}

describe("login lockout on the shared server (no trusted proxy)", () => {
  it("locks after the 3rd wrong password: then even the right password gets 429 with the lock end", async () => {
    const user = await seedUser();
    const first = await login(user.username, "wrong-password");
    expect(first.status).toBe(401);
    expect(lockout(first)).toBe("0");
    expect(first.body).toEqual({ message: expect.any(String) });
    const second = await login(user.username, "wrong-password");
    expect(second.status).toBe(401);
    expect(lockout(second)).toBe("0");
    const before = nowSeconds();
    const third = await login(user.username, "wrong-password");
    const until = expectLockedFor1Minute(third, before);
    expect(third.body).toEqual(first.body);

    const right = await login(user.username, user.password);
    expect(right.status).toBe(429);
    expect(lockout(right)).toBe(String(until));
    expect(right.body).toEqual({ message: expect.any(String) });
    expect(right.body).not.toHaveProperty("token");
    const wrong = await login(user.username, "wrong-password");
    expect(wrong.status).toBe(429);
    expect(lockout(wrong)).toBe(String(until));
  });

  it("applies the same lock to POST /api/auth/user", async () => {
    const user = await seedUser();
    const until = await lockOut(user.username, { path: "/api/auth/user" });
    const right = await login(user.username, user.password);
    expect(right.status).toBe(429);
    expect(lockout(right)).toBe(String(until));
    const viaAuthUser = await login(user.username, user.password, { path: "/api/auth/user" });
    expect(viaAuthUser.status).toBe(429);
    expect(lockout(viaAuthUser)).toBe(String(until));
  });

  it("counts failures in a row only: a successful login resets the count", async () => {
    const user = await seedUser();
    for (let round = 0; round < 2; round++) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await login(user.username, "wrong-password");
        expect(response.status).toBe(401);
        expect(lockout(response)).toBe("0");
      }
      const success = await login(user.username, user.password);
      expect(success.status).toBe(200);
      expect(lockout(success)).toBe("0");
    }
  });

  it("locks the account, not the identifier: failures by username lock logins by e-mail and the other way round", async () => {
    const byUsername = await seedUser();
    const until = await lockOut(byUsername.username);
    for (const identifier of [byUsername.email, byUsername.email.toUpperCase(), byUsername.username.toUpperCase()]) {
      const response = await login(identifier, byUsername.password);
      expect(response.status, identifier).toBe(429);
      expect(lockout(response), identifier).toBe(String(until));
    }

    const mixed = await seedUser();
    for (const identifier of [mixed.username, mixed.email]) {
      const response = await login(identifier, "wrong-password");
      expect(response.status).toBe(401);
      expect(lockout(response)).toBe("0");
    }
    const before = nowSeconds();
    expectLockedFor1Minute(await login(mixed.username.toUpperCase(), "wrong-password"), before);
    expect((await login(mixed.username, mixed.password)).status).toBe(429);
  });

  it("locks only that account: another user from the same source still logs in", async () => {
    const locked = await seedUser();
    const other = await seedUser();
    await lockOut(locked.username);
    const response = await login(other.username, other.password);
    expect(response.status).toBe(200);
    expect(lockout(response)).toBe("0");
  });

  it("ignores X-Real-IP from an untrusted peer: changing it does not escape the lock", async () => {
    const user = await seedUser();
    const until = await lockOut(user.username, { realIp: "10.20.30.40" });
    for (const realIp of ["10.20.30.41", "192.168.1.1", "127.0.0.2"]) {
      const response = await login(user.username, user.password, { realIp });
      expect(response.status, realIp).toBe(429);
      expect(lockout(response), realIp).toBe(String(until));
    }
    // Without the header too: it was never the source.
    expect((await login(user.username, user.password)).status).toBe(429);
  });

  it("ignores forged internal and forwarding headers", async () => {
    const user = await seedUser();
    await lockOut(user.username);
    const forged = {
      "x-das-peer-address": "10.9.9.9",
      "x-forwarded-for": "10.9.9.9",
      forwarded: "for=10.9.9.9",
      "x-client-ip": "10.9.9.9",
    };
    const response = await login(user.username, user.password, { headers: forged });
    expect(response.status).toBe(429);
  });

  it("answers an unknown user exactly like a wrong password, lock included", async () => {
    const user = await seedUser();
    const ghost = uniqueName("ghost");
    const ghostEmail = `${uniqueName("ghost")}@example.com`;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const wrong = await login(user.username, "wrong-password");
      for (const identifier of [ghost, ghostEmail]) {
        const unknown = await login(identifier, "wrong-password");
        expect(unknown.status).toBe(wrong.status);
        expect(unknown.text).toBe(wrong.text);
        expect(lockout(unknown)).toBe(lockout(wrong));
        expect(unknown.headers.get("content-type")).toBe(wrong.headers.get("content-type"));
      }
    }
    const before = nowSeconds();
    const wrong = await login(user.username, "wrong-password");
    expectLockedFor1Minute(wrong, before);
    for (const identifier of [ghost, ghostEmail]) {
      const unknown = await login(identifier, "wrong-password");
      expectLockedFor1Minute(unknown, before);
      expect(unknown.text).toBe(wrong.text);
      const again = await login(identifier, "anything");
      expect(again.status).toBe(429);
      const lockedAgain = await login(user.username, "anything");
      expect(again.text).toBe(lockedAgain.text);
    }
  });
});

describe("login lockout per source behind a trusted proxy", () => {
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  const base = () => ({ baseUrl: server.url });

  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
    dropDatabase = database?.drop;
    server = await startServer({ TRUSTED_PROXIES: "127.0.0.1", DATABASE_URL: database?.url });
  });

  afterAll(async () => {
    await server?.stop();
    await dropDatabase?.();
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  async function register() {
    const username = uniqueName("p");
    const body = { name: "Proxy User", username, email: `${username}@example.com`, password: "secret-pass" };
    const response = await call("POST", "/api/register", { body, ...base() });
    expect(response.status).toBe(200);
    return body;
  }

  it("a locked source does not lock another source", async () => {
    const user = await register();
    const until = await lockOut(user.username, { realIp: "10.0.0.1", ...base() });

    const locked = await login(user.username, user.password, { realIp: "10.0.0.1", ...base() });
    expect(locked.status).toBe(429);
    expect(lockout(locked)).toBe(String(until));

    const elsewhere = await login(user.username, user.password, { realIp: "10.0.0.2", ...base() });
    expect(elsewhere.status).toBe(200);
    expect(lockout(elsewhere)).toBe("0");
    expect(elsewhere.body.user).toBe(user.username);

    // The proxy itself (no X-Real-IP) is a source of its own.
    expect((await login(user.username, user.password, base())).status).toBe(200);

    // A success from another source does not lift the lock of the first one.
    const stillLocked = await login(user.username, user.password, { realIp: "10.0.0.1", ...base() });
    expect(stillLocked.status).toBe(429);
    expect(lockout(stillLocked)).toBe(String(until));
  });

  it("counts failures per source: two sources with two failures each lock neither", async () => {
    const user = await register();
    for (const realIp of ["10.0.1.1", "10.0.1.2", "10.0.1.1", "10.0.1.2"]) {
      const response = await login(user.username, "wrong-password", { realIp, ...base() });
      expect(response.status).toBe(401);
      expect(lockout(response)).toBe("0");
    }
    expect((await login(user.username, user.password, { realIp: "10.0.1.1", ...base() })).status).toBe(200);
    expect((await login(user.username, user.password, { realIp: "10.0.1.2", ...base() })).status).toBe(200);
  });

  it("falls back to the peer address when X-Real-IP is not an IPv4 address", async () => {
    const user = await register();
    // Locked as the peer (127.0.0.1), through junk X-Real-IP values.
    for (const realIp of ["not-an-ip", "10.0.2.1, 10.0.2.2"]) {
      const response = await login(user.username, "wrong-password", { realIp, ...base() });
      expect(response.status).toBe(401);
      expect(lockout(response)).toBe("0");
    }
    const before = nowSeconds();
    expectLockedFor1Minute(await login(user.username, "wrong-password", { realIp: "999.1.1.1", ...base() }), before);
    expect((await login(user.username, user.password, base())).status).toBe(429);
    expect((await login(user.username, user.password, { realIp: "10.0.2.1", ...base() })).status).toBe(200);
  });

  it("locks by account across username and e-mail for one source only", async () => {
    const user = await register();
    await lockOut(user.email, { realIp: "10.0.3.1", ...base() });
    expect((await login(user.username, user.password, { realIp: "10.0.3.1", ...base() })).status).toBe(429);
    expect((await login(user.email, user.password, { realIp: "10.0.3.2", ...base() })).status).toBe(200);
  });
});
