import { clearFailures, countLoginAttempt, type LockoutKey } from "../auth/lockout";
import { verifyPassword } from "../auth/passwords";
import type { Executor } from "../db";
import { forbidden, unauthorized } from "../errors";
import { auditedLogin } from "./audit";
import { mfaChallenge } from "./mfa";
import { findUserByIdentifier, hasMfa, loggedIn, requireUser } from "./users";

/**
 * Logs a user in by username or e-mail. Attempts count per (source, account): the third failure
 * in a row locks the pair (429 with `X-Account-Lockout`, epoch seconds). Unknown users and wrong
 * passwords answer alike and take the same time. Any failure of the lockout store fails the login.
 * The right password is never a failure: for an MFA user it earns an `X-MFA-Token`, and Auth MFA
 * counts wrong codes against that token and in a lockout of its own (`hasMfa`: never in the
 * community edition), so a person who goes back to the password step is not locked out.
 */
export function loginUser(db: Executor, credentials: { username: string; password: string }, source: string) {
  return auditedLogin(db, "user.login", { source, identifier: credentials.username }, async (identify) => {
    const user = await findUserByIdentifier(db, credentials.username);
    if (user) identify(user);
    const key = { source, subject: user ? `user:${user.id}` : `name:${credentials.username}` };
    await checkPassword(db, key, user?.passwordHash, credentials.password, "invalid username or password");
    // An unknown name was refused just above (no password matches a missing hash); this narrows the type.
    if (!user) throw unauthorized("invalid username or password");
    // Told only after the right password, so the answer reveals nothing to a guesser.
    if (!user.isConfirmed)
      throw forbidden("this account is not confirmed yet: follow the link in the activation e-mail");
    if (hasMfa(user)) throw await mfaChallenge(db, user);
    return loggedIn(db, user);
  });
}

/**
 * Checks the signed-in user's own password again before a sensitive change (the console's MFA
 * enrolment): wrong answers count in the login's lockout for this source and account.
 */
export async function confirmOwnPassword(db: Executor, userId: string, password: string, source: string) {
  const user = await requireUser(db, userId);
  await checkPassword(db, { source, subject: `user:${user.id}` }, user.passwordHash, password, "the password is wrong");
}

/**
 * One password attempt of the pair `key`, counted in the lockout (429 while locked); a wrong
 * one (or no account: `hash` undefined) is a 401 with `refusal`, a right one clears the count.
 */
async function checkPassword(
  db: Executor,
  key: LockoutKey,
  hash: string | undefined,
  password: string,
  refusal: string,
) {
  const lockout = await countLoginAttempt(db, key);
  if (!(await verifyPassword(hash, password))) throw unauthorized(refusal, lockout);
  await clearFailures(db, key);
}
