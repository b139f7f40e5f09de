import { randomUUID, timingSafeEqual } from "node:crypto";
import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import QRCode from "qrcode";
import { mfaRecoveryCodes } from "@/models/mfa-recovery-codes";
import { userTokens } from "@/models/user-tokens";
import { type UserRow, users } from "@/models/users";
import { clearFailures, countLoginAttempt, lockoutHeader } from "../auth/lockout";
import { openSecret, sealSecret } from "../auth/secret-box";
import { hashToken } from "../auth/token-hash";
import { matchTotp, newTotpSecret, totpUri } from "../auth/totp";
import type { Executor } from "../db";
import { badRequest, conflict, errorText, unauthorized } from "../errors";
import { log } from "../log";
import { queueMail } from "../mail/outbox";
import { mfaResetMail } from "../mail/templates";
import { limitMailRequests } from "./account-recovery";
import { auditedLogin } from "./audit";
import { issueToken, newTypedCode, normalizeCode } from "./user-tokens";
import { findUserByIdentifier, getCurrentUser, loggedIn, requireUser } from "./users";

export const mfaIssuer = "Device Access";
const recoveryCodeCount = 6;
const mfaTokenSeconds = 5 * 60;
const mfaTokenMaxTries = 5;
const recoveryCacheSeconds = 10 * 60;
const resetCodeSeconds = 24 * 3600;

const hashCode = (code: string) => hashToken(normalizeCode(code));

/** The user's TOTP secret; undefined without one, or when it cannot be decrypted (another key). */
function readSecret(user: UserRow): string | undefined {
  if (!user.mfaSecret) return undefined;
  try {
    return openSecret(user.mfaSecret, user.id);
  } catch (error) {
    log.warn("a stored TOTP secret does not decrypt: was MFA_ENCRYPTION_KEY or DATA_DIR/mfa.key changed?", {
      userId: user.id,
      error: errorText(error),
    });
    return undefined;
  }
}

/**
 * Accepts a TOTP code once: it must be right for the user's secret and belong to a later time
 * step than the last accepted one, which it then becomes (one conditional update, so two
 * requests with the same code cannot both pass).
 */
async function acceptTotp(db: Executor, user: UserRow, code: string): Promise<boolean> {
  const secret = readSecret(user);
  if (secret === undefined) return false;
  const step = await matchTotp(secret, code, user.mfaLastStep);
  if (step === undefined) return false;
  const accepted = await db
    .update(users)
    .set({ mfaLastStep: step })
    .where(and(eq(users.id, user.id), or(isNull(users.mfaLastStep), lt(users.mfaLastStep, step))))
    .returning({ id: users.id });
  return accepted.length === 1;
}

/** New credentials, kept server-side (secret sealed, codes hashed) until Enable MFA confirms them. */
export async function generateMfa(db: Executor, userId: string) {
  const user = await requireUser(db, userId);
  if (user.mfaEnabled) throw conflict("MFA is already enabled: disable it first");
  const secret = newTotpSecret();
  const recoveryCodes = Array.from({ length: recoveryCodeCount }, newTypedCode);
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ mfaSecret: sealSecret(secret, user.id) })
      .where(eq(users.id, user.id));
    await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, user.id));
    await tx
      .insert(mfaRecoveryCodes)
      .values(recoveryCodes.map((code) => ({ userId: user.id, codeHash: hashCode(code), isPending: true })));
  });
  const link = totpUri(secret, mfaIssuer, user.email);
  return { link, secret, recovery_codes: recoveryCodes, qr_code: await QRCode.toDataURL(link) };
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Turns MFA on with the secret and recovery codes Generate issued to this user (nothing else is
 * accepted) and a current code; the account needs a recovery e-mail first.
 */
export async function enableMfa(
  db: Executor,
  userId: string,
  tokenTenant: string,
  input: { code: string; secret: string; recovery_codes: string[] },
) {
  const user = await requireUser(db, userId);
  if (user.mfaEnabled) throw conflict("MFA is already enabled: disable it first");
  if (!user.recoveryEmail) throw badRequest("set a recovery e-mail before enabling MFA");
  const issuedSecret = readSecret(user);
  if (issuedSecret === undefined || !sameText(issuedSecret, input.secret)) {
    throw badRequest("the secret is not the one generated for you: generate MFA credentials again");
  }
  const pending = await db
    .select({ codeHash: mfaRecoveryCodes.codeHash })
    .from(mfaRecoveryCodes)
    .where(and(eq(mfaRecoveryCodes.userId, user.id), eq(mfaRecoveryCodes.isPending, true)));
  const given = new Set(input.recovery_codes.map(hashCode));
  const issued = new Set(pending.map((row) => row.codeHash));
  if (given.size !== issued.size || issued.size === 0 || [...given].some((hash) => !issued.has(hash))) {
    throw badRequest("the recovery codes are not the ones generated for you");
  }
  if (!(await acceptTotp(db, user, input.code))) throw unauthorized("invalid code");
  // Only if no other Generate or Enable came in between: the checked secret is still the stored one.
  const isEnabled = await db.transaction(async (tx) => {
    const enabled = await tx
      .update(users)
      .set({ mfaEnabled: true })
      .where(and(eq(users.id, user.id), eq(users.mfaEnabled, false), eq(users.mfaSecret, user.mfaSecret ?? "")))
      .returning({ id: users.id });
    if (enabled.length === 0) return false;
    await tx.update(mfaRecoveryCodes).set({ isPending: false }).where(eq(mfaRecoveryCodes.userId, user.id));
    return true;
  });
  if (!isEnabled) throw conflict("the MFA credentials changed meanwhile: generate them again");
  return getCurrentUser(db, user.id, tokenTenant);
}

/**
 * The answer to the right password of an MFA user: 401 with an `X-MFA-Token` (5 minutes, single
 * use, 5 tries) that grants nothing but the right to send a code to Auth MFA.
 */
export async function mfaChallenge(db: Executor, user: UserRow) {
  const token = await issueToken(db, user.id, "mfa_login", mfaTokenSeconds, { token: randomUUID(), replace: false });
  return unauthorized("enter the code of your authenticator app (Auth MFA)", {
    [lockoutHeader]: "0",
    "X-MFA-Token": token,
  });
}

/**
 * The lockout of the second-factor steps (TOTP, recovery and reset codes) of a (source, account),
 * apart from the password's: wrong codes never lock the password step, and a right password does
 * not reset the count of wrong codes. Only a completed second-factor step clears it.
 */
const secondFactorLockoutKey = (source: string, account: string) => ({ source, subject: `mfa:${account}` });

/**
 * The second step of an MFA login. Each try counts against the token (5 at most, from any
 * source) and in the second-factor lockout, both before the code is checked.
 */
export const authMfa = (db: Executor, input: { token: string; code: string }, source: string) =>
  auditedLogin(db, "user.mfa", { source, identifier: "" }, (identify) => checkMfaCode(db, input, source, identify));

async function checkMfaCode(
  db: Executor,
  input: { token: string; code: string },
  source: string,
  identify: (user: UserRow) => void,
) {
  const [tried] = await db
    .update(userTokens)
    .set({ failures: sql`${userTokens.failures} + 1` })
    .where(
      and(
        eq(userTokens.purpose, "mfa_login"),
        eq(userTokens.tokenHash, hashToken(input.token)),
        gt(userTokens.expiresAt, sql`now()`),
        lt(userTokens.failures, mfaTokenMaxTries),
      ),
    )
    .returning({ id: userTokens.id, userId: userTokens.userId });
  if (!tried) throw unauthorized("invalid or expired MFA token: log in again");
  const key = secondFactorLockoutKey(source, tried.userId);
  const headers = await countLoginAttempt(db, key);
  const user = await requireUser(db, tried.userId);
  identify(user);
  if (!(await acceptTotp(db, user, input.code))) throw unauthorized("invalid code", headers);
  const used = await db.delete(userTokens).where(eq(userTokens.id, tried.id)).returning({ id: userTokens.id });
  if (used.length === 0) throw unauthorized("invalid or expired MFA token: log in again", headers);
  await clearFailures(db, key);
  return loggedIn(db, user);
}

/**
 * Logs in with a recovery code instead of a TOTP code. The code is spent, but for 10 minutes it
 * still disables MFA (`X-Expires-At`). Counts in the second-factor lockout.
 */
export const recoverMfa = (db: Executor, input: { identifier: string; recovery_code: string }, source: string) =>
  auditedLogin(db, "user.mfa_recover", { source, identifier: input.identifier }, (identify) =>
    checkRecoveryCode(db, input, source, identify),
  );

async function checkRecoveryCode(
  db: Executor,
  input: { identifier: string; recovery_code: string },
  source: string,
  identify: (user: UserRow) => void,
) {
  const user = await findUserByIdentifier(db, input.identifier);
  if (user) identify(user);
  const key = secondFactorLockoutKey(source, user ? user.id : `name:${input.identifier}`);
  const headers = await countLoginAttempt(db, key);
  const [spent] = user?.mfaEnabled
    ? await db
        .update(mfaRecoveryCodes)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(mfaRecoveryCodes.userId, user.id),
            eq(mfaRecoveryCodes.codeHash, hashCode(input.recovery_code)),
            eq(mfaRecoveryCodes.isPending, false),
            isNull(mfaRecoveryCodes.usedAt),
          ),
        )
        .returning({ usedAt: mfaRecoveryCodes.usedAt })
    : [];
  if (!user || !spent?.usedAt) throw unauthorized("invalid identifier or recovery code", headers);
  await clearFailures(db, key);
  const expiresAt = Math.floor(spent.usedAt.getTime() / 1000) + recoveryCacheSeconds;
  return loggedIn(db, user, { recoveryCodeExpiresAt: expiresAt });
}

async function turnOffMfa(db: Executor, userId: string) {
  await db.transaction(async (tx) => {
    await tx.update(users).set({ mfaEnabled: false, mfaSecret: null, mfaLastStep: null }).where(eq(users.id, userId));
    await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId));
    await tx
      .delete(userTokens)
      .where(
        and(
          eq(userTokens.userId, userId),
          inArray(userTokens.purpose, ["mfa_login", "mfa_reset_main", "mfa_reset_recovery"]),
        ),
      );
  });
}

/**
 * Turns MFA off with a current code, an unused recovery code, or a recovery code that Recover
 * MFA spent less than 10 minutes ago.
 */
export async function disableMfa(
  db: Executor,
  userId: string,
  tokenTenant: string,
  input: { code?: string; recovery_code?: string },
) {
  const user = await requireUser(db, userId);
  if (!user.mfaEnabled) throw badRequest("MFA is not enabled");
  if (input.code !== undefined) {
    if (!(await acceptTotp(db, user, input.code))) throw unauthorized("invalid code");
  } else {
    const accepted = await db
      .update(mfaRecoveryCodes)
      .set({ usedAt: sql`coalesce(${mfaRecoveryCodes.usedAt}, now())` })
      .where(
        and(
          eq(mfaRecoveryCodes.userId, user.id),
          eq(mfaRecoveryCodes.codeHash, hashCode(input.recovery_code ?? "")),
          eq(mfaRecoveryCodes.isPending, false),
          or(
            isNull(mfaRecoveryCodes.usedAt),
            gt(mfaRecoveryCodes.usedAt, sql`now() - make_interval(secs => ${recoveryCacheSeconds})`),
          ),
        ),
      )
      .returning({ userId: mfaRecoveryCodes.userId });
    if (accepted.length === 0) throw unauthorized("invalid recovery code");
  }
  await turnOffMfa(db, user.id);
  return getCurrentUser(db, user.id, tokenTenant);
}

/**
 * Mails one reset code to the account's e-mail and one to its recovery e-mail (24 hours each);
 * the same answer whatever the identifier names.
 */
export async function requestMfaReset(db: Executor, identifier: string, source: string) {
  const user = await findUserByIdentifier(db, identifier);
  await limitMailRequests(db, source, user?.id ?? identifier);
  if (user?.mfaEnabled && user.recoveryEmail) {
    const main = await issueToken(db, user.id, "mfa_reset_main", resetCodeSeconds, { token: newTypedCode() });
    const recovery = await issueToken(db, user.id, "mfa_reset_recovery", resetCodeSeconds, { token: newTypedCode() });
    await queueMail(db, mfaResetMail(user.email, user.name, main, "main"));
    await queueMail(db, mfaResetMail(user.recoveryEmail, user.name, recovery, "recovery"));
  }
  return { message: "if the account has MFA, a code is on its way to each of its e-mail addresses" };
}

/**
 * The reset for a person who names the account (the console's login step knows the username,
 * not the id): an unknown name is refused as wrong codes are.
 */
export async function resetMfaOfAccount(
  db: Executor,
  identifier: string,
  input: { main_email_code: string; recovery_email_code: string },
  source: string,
) {
  const user = await findUserByIdentifier(db, identifier);
  if (!user) throw unauthorized("invalid or expired reset codes");
  return resetMfa(db, user.id, input, source);
}

/** Turns MFA off with both mailed codes and logs the user in. Counts in the second-factor lockout. */
export async function resetMfa(
  db: Executor,
  userId: string,
  input: { main_email_code: string; recovery_email_code: string },
  source: string,
) {
  const key = secondFactorLockoutKey(source, userId);
  const headers = await countLoginAttempt(db, key);
  // Both codes are locked, then spent together, or neither is (one right code alone spends nothing).
  const isReset = await db.transaction(async (tx) => {
    const matching = await tx
      .select({ id: userTokens.id })
      .from(userTokens)
      .where(
        and(
          eq(userTokens.userId, userId),
          gt(userTokens.expiresAt, sql`now()`),
          or(
            and(eq(userTokens.purpose, "mfa_reset_main"), eq(userTokens.tokenHash, hashCode(input.main_email_code))),
            and(
              eq(userTokens.purpose, "mfa_reset_recovery"),
              eq(userTokens.tokenHash, hashCode(input.recovery_email_code)),
            ),
          ),
        ),
      )
      .for("update");
    if (matching.length !== 2) return false;
    await tx.delete(userTokens).where(
      inArray(
        userTokens.id,
        matching.map((row) => row.id),
      ),
    );
    await turnOffMfa(tx, userId);
    return true;
  });
  if (!isReset) throw unauthorized("invalid or expired reset codes", headers);
  await clearFailures(db, key);
  const user = await requireUser(db, userId);
  return loggedIn(db, user);
}
