import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { loginAttempts } from "@/models/login-attempts";
import { withTestDatabase } from "@/testing/database";
import { clearFailures, countAttempt, lockedUntil } from "../auth/lockout";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { Reply } from "../results";
import { loginUser } from "./login";
import { createUser } from "./users";

// getConfig() reads process.env on first use: keep the signing key out of the repository.
const dataDir = mkdtempSync(path.join(tmpdir(), "das-login-"));
process.env.DATA_DIR = dataDir;
process.env.JWT_SECRET ??= "a-test-secret-that-is-at-least-32-characters";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function newUser() {
  const username = `u${randomUUID().slice(0, 8)}`;
  const password = "secret-pass";
  const user = await createUser(db, { name: "Login Test", username, email: `${username}@example.com`, password });
  return { ...user, password };
}

/** What loginUser did: its result or its error. */
async function attempt(credentials: { username: string; password: string }, source = "10.0.0.1") {
  try {
    return { result: await loginUser(db, credentials, source), error: undefined };
  } catch (error) {
    return { result: undefined, error };
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function failuresOf(key: { source: string; subject: string }) {
  const [row] = await db
    .select({ failures: loginAttempts.failures })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.source, key.source), eq(loginAttempts.subject, key.subject)));
  return row?.failures;
}

describe("loginUser", () => {
  it("returns the User object with X-Account-Lockout 0 for the right password (control)", async () => {
    const user = await newUser();
    const { result, error } = await attempt({ username: user.username, password: user.password });
    expect(error).toBeUndefined();
    expect(result).toBeInstanceOf(Reply);
    expect(result?.body).toMatchObject({ id: user.id, user: user.username, token: expect.any(String) });
    expect(result?.init.headers).toEqual({ "X-Account-Lockout": "0" });
  });

  it("locks at the 3rd failure and then refuses the right password with 429", async () => {
    const user = await newUser();
    for (let failure = 1; failure <= 3; failure++) {
      const { error } = await attempt({ username: user.username, password: "wrong" });
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(401);
      const header = Number((error as ApiError).headers["X-Account-Lockout"]);
      if (failure < 3) expect(header).toBe(0);
      else expect(header).toBeGreaterThanOrEqual(nowSeconds() + 59);
    }
    const { result, error } = await attempt({ username: user.username, password: user.password });
    expect(result).toBeUndefined();
    expect((error as ApiError).status).toBe(429);
    // Another source is not locked.
    expect((await attempt({ username: user.username, password: user.password }, "10.0.0.2")).result).toBeInstanceOf(
      Reply,
    );
  });

  it("still locks a pair with a long history of failures once its last lock has run out", async () => {
    // 600 failures: about 8 hours of one guess a minute with LOCKOUT_MAX_MINUTES=1, or ~600 days with the default.
    const user = await newUser();
    const key = { source: "10.0.0.3", subject: `user:${user.id}` };
    await db.insert(loginAttempts).values({ ...key, failures: 600, lockedUntil: new Date(Date.now() - 1000) });
    const guess = await attempt({ username: user.username, password: "wrong-password" }, key.source);
    expect(guess.error).toBeInstanceOf(ApiError);
    expect((guess.error as ApiError).status).toBe(401);
    expect(Number((guess.error as ApiError).headers["X-Account-Lockout"])).toBeGreaterThan(nowSeconds());
    const right = await attempt({ username: user.username, password: user.password }, key.source);
    expect(right.result).toBeUndefined();
    expect((right.error as ApiError).status).toBe(429);
  });

  describe("when the lockout store fails", () => {
    it("rejects even the right password while the table is missing (renamed)", async () => {
      const user = await newUser();
      await db.execute(sql`alter table login_attempts rename to login_attempts_gone`);
      try {
        for (const password of [user.password, "wrong-password"]) {
          const { result, error } = await attempt({ username: user.username, password });
          expect(result, password).toBeUndefined();
          expect(error, password).toBeDefined();
          // Not an answer a client could take for a normal one.
          if (error instanceof ApiError) expect(error.status).toBeGreaterThanOrEqual(500);
        }
      } finally {
        await db.execute(sql`alter table login_attempts_gone rename to login_attempts`);
      }
      // Control: with the store back, the same login works.
      expect((await attempt({ username: user.username, password: user.password })).result).toBeInstanceOf(Reply);
    });

    it("rejects even the right password while the table is dropped", async () => {
      const user = await newUser();
      await db.execute(sql`create table login_attempts_saved as table login_attempts`);
      await db.execute(sql`drop table login_attempts`);
      try {
        const { result, error } = await attempt({ username: user.username, password: user.password });
        expect(result).toBeUndefined();
        expect(error).toBeDefined();
        if (error instanceof ApiError) expect(error.status).toBeGreaterThanOrEqual(500);
      } finally {
        await db.execute(sql`create table login_attempts (like login_attempts_saved including all)`);
        await db.execute(sql`insert into login_attempts select * from login_attempts_saved`);
        await db.execute(sql`drop table login_attempts_saved`);
        await db.execute(
          sql`alter table login_attempts add constraint login_attempts_source_subject_pk primary key (source, subject)`,
        );
      }
      expect((await attempt({ username: user.username, password: user.password })).result).toBeInstanceOf(Reply);
    });

    it("does not answer 401 to a wrong password when the failure cannot be recorded", async () => {
      const user = await newUser();
      await db.execute(
        sql`alter table login_attempts add constraint login_attempts_no_writes check (failures < 0) not valid`,
      );
      try {
        const { result, error } = await attempt({ username: user.username, password: "wrong-password" });
        expect(result).toBeUndefined();
        expect(error).toBeDefined();
        // A 401 would hide that the guess was not counted.
        expect(error instanceof ApiError && error.status < 500).toBe(false);
      } finally {
        await db.execute(sql`alter table login_attempts drop constraint login_attempts_no_writes`);
      }
    });

    it("rejects the right password when the failures cannot be cleared", async () => {
      const user = await newUser();
      await db.execute(sql`create or replace function login_attempts_refuse() returns trigger language plpgsql as $$
        begin raise exception 'lockout store unavailable'; end $$`);
      await db.execute(sql`create trigger login_attempts_refuse before delete on login_attempts
        for each statement execute function login_attempts_refuse()`);
      try {
        const { result, error } = await attempt({ username: user.username, password: user.password });
        expect(result).toBeUndefined();
        expect(error).toBeDefined();
      } finally {
        await db.execute(sql`drop trigger login_attempts_refuse on login_attempts`);
        await db.execute(sql`drop function login_attempts_refuse()`);
      }
    });
  });
});

describe("countAttempt", () => {
  const expireLock = (key: { source: string; subject: string }) =>
    db.execute(sql`update login_attempts set locked_until = now() - interval '1 second'
      where source = ${key.source} and subject = ${key.subject}`);

  it("lets exactly 3 of 20 concurrent attempts through before the lock: one atomic statement each", async () => {
    const key = { source: "10.1.1.1", subject: `user:${randomUUID()}` };
    const results = await Promise.all(Array.from({ length: 20 }, () => countAttempt(db, key, 1440)));
    expect(await failuresOf(key)).toBe(3);
    expect(results.filter((result) => !result.wasLocked)).toHaveLength(3);
    expect(results.filter((result) => result.wasLocked && result.lockedUntil > nowSeconds())).toHaveLength(17);
  });

  it("locks for 1 minute at the 3rd failure, then 4, 16 ... up to the maximum", async () => {
    const key = { source: "10.1.1.2", subject: `user:${randomUUID()}` };
    const maxMinutes = 20;
    expect(await countAttempt(db, key, maxMinutes)).toEqual({ wasLocked: false, lockedUntil: 0 });
    expect(await countAttempt(db, key, maxMinutes)).toEqual({ wasLocked: false, lockedUntil: 0 });
    expect(await lockedUntil(db, key)).toBe(0);
    for (const minutes of [1, 4, 16, 20, 20]) {
      const before = nowSeconds();
      const attempt = await countAttempt(db, key, maxMinutes);
      expect(attempt.wasLocked).toBe(false);
      expect(attempt.lockedUntil, `${minutes} min`).toBeGreaterThanOrEqual(before + minutes * 60);
      expect(attempt.lockedUntil, `${minutes} min`).toBeLessThanOrEqual(nowSeconds() + minutes * 60 + 1);
      expect(await lockedUntil(db, key)).toBe(attempt.lockedUntil);
      // While locked, an attempt is refused and neither counts nor extends the lock.
      expect(await countAttempt(db, key, maxMinutes)).toEqual({ wasLocked: true, lockedUntil: attempt.lockedUntil });
      await expireLock(key);
    }
    await clearFailures(db, key);
    expect(await lockedUntil(db, key)).toBe(0);
    expect(await failuresOf(key)).toBeUndefined();
  });

  it("keeps locking for the maximum after very many failures (no arithmetic overflow)", async () => {
    const key = { source: "10.1.1.3", subject: `user:${randomUUID()}` };
    const maxMinutes = 1;
    await db.insert(loginAttempts).values({ ...key, failures: 600, lockedUntil: null });
    const before = nowSeconds();
    const attempt = await countAttempt(db, key, maxMinutes);
    expect(attempt.wasLocked).toBe(false);
    expect(attempt.lockedUntil).toBeGreaterThanOrEqual(before + 60);
    expect(attempt.lockedUntil).toBeLessThanOrEqual(nowSeconds() + 61);
    expect(await failuresOf(key)).toBe(601);
  });
});
