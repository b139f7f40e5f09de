import { and, eq } from "drizzle-orm";
import { type UserRow, users } from "@/models/users";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { unauthorized } from "../errors";
import { queueMail } from "../mail/outbox";
import { activationMail, passwordRecoveryMail } from "../mail/templates";
import { consumeRateLimit } from "./rate-limit";
import { consumeToken, issueToken } from "./user-tokens";
import { createUser, findUserByIdentifier, issueUserObject, type RegisterInput, setPassword } from "./users";

const activationSeconds = 24 * 3600;
const passwordResetSeconds = 3600;
const hourSeconds = 3600;

/** What the mail-sending operations answer, whether or not a mail went out. */
const acknowledged = { message: "if the account exists, an e-mail is on its way" };

/**
 * Counts a request that may send mail, per source and per addressee (the account when it
 * exists, else what was asked for), so that nobody can flood an inbox through the service.
 * Unknown accounts count alike, so the 429 reveals nothing either.
 */
export async function limitMailRequests(db: Executor, source: string, addressee: string) {
  const config = getConfig();
  await consumeRateLimit(db, `mail:source:${source}`, config.MAIL_REQUESTS_PER_HOUR_PER_SOURCE, hourSeconds);
  await consumeRateLimit(db, `mail:to:${addressee}`, config.MAIL_REQUESTS_PER_HOUR, hourSeconds);
}

async function sendActivation(db: Executor, user: UserRow) {
  const token = await issueToken(db, user.id, "activation", activationSeconds);
  await queueMail(db, activationMail(user.email, user.name, token));
}

/**
 * Registers a user. With REQUIRE_EMAIL_CONFIRMATION the account waits for the link of the
 * activation mail and the answer is a message; without, it is usable at once and the answer is
 * the User object.
 */
export async function registerUser(db: Executor, input: RegisterInput, source: string) {
  if (!getConfig().REQUIRE_EMAIL_CONFIRMATION) return issueUserObject(db, await createUser(db, input));
  await limitMailRequests(db, source, input.email);
  const user = await createUser(db, input, { isConfirmed: false });
  await sendActivation(db, user);
  return { message: "check your e-mail: the account works once its address is confirmed" };
}

/** Sends a new activation link to an account that is not confirmed yet; the same answer for any name. */
export async function resendConfirmation(db: Executor, identifier: string, source: string) {
  const user = await findUserByIdentifier(db, identifier);
  await limitMailRequests(db, source, user?.id ?? identifier);
  if (user && !user.isConfirmed) await sendActivation(db, user);
  return acknowledged;
}

/** Activates the account of the activation link (the token works once, for 24 hours). */
export async function validateAccount(db: Executor, email: string, token: string) {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const userId = user && (await consumeToken(db, "activation", token, user.id));
  if (!userId) throw unauthorized("invalid or expired activation link: ask for a new one");
  await db
    .update(users)
    .set({ isConfirmed: true })
    .where(and(eq(users.id, userId), eq(users.isConfirmed, false)));
  return { message: "account activated: you can log in" };
}

/** Mails a password-recovery link (single use, 1 hour) to the account's e-mail; the same answer for any name. */
export async function recoverPassword(db: Executor, identifier: string, source: string) {
  const user = await findUserByIdentifier(db, identifier);
  await limitMailRequests(db, source, user?.id ?? identifier);
  if (user) {
    const token = await issueToken(db, user.id, "password_reset", passwordResetSeconds);
    await queueMail(db, passwordRecoveryMail(user.email, user.name, user.id, token));
  }
  return acknowledged;
}

/** Sets the password from a recovery link's token; the token, and any older one, then die. */
export async function updatePasswordFromToken(db: Executor, userId: string, token: string, password: string) {
  const owner = await consumeToken(db, "password_reset", token, userId);
  if (!owner) throw unauthorized("invalid or expired password-recovery token: ask for a new one");
  await setPassword(db, owner, password);
  return { message: "password changed" };
}
