import { clearFailures, lockedUntil, recordFailure } from "../auth/lockout";
import { verifyPassword } from "../auth/passwords";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { forbidden, tooManyRequests, unauthorized } from "../errors";
import { Reply } from "../http/route";
import { findUserByIdentifier, issueUserObject } from "./users";

const lockoutHeader = "X-Account-Lockout";

/**
 * Logs a user in by username or e-mail. Failures count per (source, account): the third in a
 * row locks the pair (429 with `X-Account-Lockout`, epoch seconds). Unknown users and wrong
 * passwords answer alike and take the same time. Any failure of the lockout store fails the login.
 */
export async function loginUser(db: Executor, credentials: { username: string; password: string }, source: string) {
  const user = await findUserByIdentifier(db, credentials.username);
  const key = { source, subject: user ? `user:${user.id}` : `name:${credentials.username}` };
  const until = await lockedUntil(db, key);
  if (until > 0) throw tooManyRequests("too many failed logins: try again later", { [lockoutHeader]: String(until) });
  const isValid = await verifyPassword(user?.passwordHash, credentials.password);
  if (!user || !isValid) {
    const lockedAt = await recordFailure(db, key, getConfig().LOCKOUT_MAX_MINUTES);
    throw unauthorized("invalid username or password", { [lockoutHeader]: String(lockedAt) });
  }
  await clearFailures(db, key);
  // Told only after the right password, so the answer reveals nothing to a guesser.
  if (!user.isConfirmed) throw forbidden("this account is not confirmed yet: follow the link in the activation e-mail");
  return new Reply(await issueUserObject(db, user), { headers: { [lockoutHeader]: "0" } });
}
