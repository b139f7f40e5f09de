import { clearFailures, countAttempt } from "../auth/lockout";
import { verifyPassword } from "../auth/passwords";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { forbidden, tooManyRequests, unauthorized } from "../errors";
import { Reply } from "../http/route";
import { findUserByIdentifier, issueUserObject } from "./users";

const lockoutHeader = "X-Account-Lockout";

/**
 * Logs a user in by username or e-mail. Attempts count per (source, account): the third failure
 * in a row locks the pair (429 with `X-Account-Lockout`, epoch seconds). Unknown users and wrong
 * passwords answer alike and take the same time. Any failure of the lockout store fails the login.
 */
export async function loginUser(db: Executor, credentials: { username: string; password: string }, source: string) {
  const user = await findUserByIdentifier(db, credentials.username);
  const key = { source, subject: user ? `user:${user.id}` : `name:${credentials.username}` };
  const attempt = await countAttempt(db, key, getConfig().LOCKOUT_MAX_MINUTES);
  const lockout = { [lockoutHeader]: String(attempt.lockedUntil) };
  if (attempt.wasLocked) throw tooManyRequests("too many failed logins: try again later", lockout);
  const isValid = await verifyPassword(user?.passwordHash, credentials.password);
  if (!user || !isValid) throw unauthorized("invalid username or password", lockout);
  await clearFailures(db, key);
  // Told only after the right password, so the answer reveals nothing to a guesser.
  if (!user.isConfirmed) throw forbidden("this account is not confirmed yet: follow the link in the activation e-mail");
  return new Reply(await issueUserObject(db, user), { headers: { [lockoutHeader]: "0" } });
}
