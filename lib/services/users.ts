import { and, asc, eq, inArray, notExists, or } from "drizzle-orm";
import { members, namespaces } from "@/models/namespaces";
import { type UserRow, users } from "@/models/users";
import { signUserToken } from "../auth/jwt";
import { lockoutHeader } from "../auth/lockout";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { conflict, FieldConflictError, forbidden, isUniqueViolation, notFound, ValidationError } from "../errors";
import { Reply } from "../results";
import type { UserObject } from "../schemas/users";
import { forgetTokens } from "./user-tokens";

export type RegisterInput = {
  name: string;
  email: string;
  username: string;
  password: string;
  email_marketing?: boolean;
};

export async function findUserByIdentifier(db: Executor, identifier: string): Promise<UserRow | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(or(eq(users.username, identifier), eq(users.email, identifier)))
    .orderBy(asc(users.createdAt))
    .limit(1);
  return user;
}

/**
 * Which of the given username/e-mail are taken by someone other than `exceptUserId`. Usernames
 * may contain `@`, so a username also collides with another account's e-mail and the reverse:
 * a login identifier always names one account.
 */
async function conflictingFields(
  db: Executor,
  fields: { username?: string; email?: string },
  exceptUserId?: string,
): Promise<string[]> {
  const values = [fields.username, fields.email].filter((value): value is string => Boolean(value));
  if (values.length === 0) return [];
  const rows = await db
    .select({ id: users.id, username: users.username, email: users.email })
    .from(users)
    .where(or(inArray(users.username, values), inArray(users.email, values)));
  const others = rows.filter((row) => row.id !== exceptUserId);
  const isTaken = (value?: string) =>
    Boolean(value) && others.some((row) => row.username === value || row.email === value);
  return [...(isTaken(fields.username) ? ["username"] : []), ...(isTaken(fields.email) ? ["email"] : [])];
}

function uniqueViolationFields(error: unknown): string[] | undefined {
  if (isUniqueViolation(error, "users_username_key")) return ["username"];
  if (isUniqueViolation(error, "users_email_key")) return ["email"];
  return undefined;
}

/** Creates an account; `isConfirmed: false` keeps it from logging in until its e-mail is confirmed. */
export async function createUser(
  db: Executor,
  input: RegisterInput,
  { isConfirmed = true }: { isConfirmed?: boolean } = {},
): Promise<UserRow> {
  const taken = await conflictingFields(db, input);
  if (taken.length > 0) throw new FieldConflictError(taken);
  try {
    const [user] = await db
      .insert(users)
      .values({
        name: input.name,
        email: input.email,
        username: input.username,
        passwordHash: await hashPassword(input.password),
        emailMarketing: input.email_marketing ?? false,
        isConfirmed,
      })
      .returning();
    if (!user) throw new Error("insert returned no row");
    return user;
  } catch (error) {
    const fields = uniqueViolationFields(error);
    if (fields) throw new FieldConflictError(fields);
    throw error;
  }
}

async function roleIn(db: Executor, userId: string, tenantId: string | null | undefined) {
  if (!tenantId) return undefined;
  const [row] = await db
    .select({ tenantId: members.tenantId, role: members.role })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.tenantId, tenantId), eq(members.status, "accepted")));
  return row;
}

/** The namespace a login lands in: the last one used, else the oldest membership. */
async function defaultMembership(db: Executor, user: UserRow) {
  const last = await roleIn(db, user.id, user.lastTenant);
  if (last) return last;
  const [first] = await db
    .select({ tenantId: members.tenantId, role: members.role })
    .from(members)
    .where(and(eq(members.userId, user.id), eq(members.status, "accepted")))
    .orderBy(asc(members.addedAt))
    .limit(1);
  return first;
}

/**
 * Whether MFA guards the user's logins. MFA is of the cloud edition: the community edition,
 * where Auth MFA does not exist, treats a user who turned it on under the cloud edition as
 * without it (a server moved from one edition to the other keeps its users).
 */
export const hasMfa = (user: Pick<UserRow, "mfaEnabled">) => user.mfaEnabled && getConfig().EDITION === "cloud";

export function describeUser(
  user: UserRow,
  membership?: { tenantId: string; role: string },
): Omit<UserObject, "token"> {
  return {
    id: user.id,
    user: user.username,
    name: user.name,
    email: user.email,
    recovery_email: user.recoveryEmail ?? "",
    tenant: membership?.tenantId ?? "",
    role: membership?.role ?? "",
    mfa: hasMfa(user),
  };
}

/** The User object with a fresh token for the user's default namespace. */
export async function issueUserObject(db: Executor, user: UserRow): Promise<UserObject> {
  const membership = await defaultMembership(db, user);
  const token = signUserToken({ sub: user.id, tenant: membership?.tenantId ?? "" });
  return { token, ...describeUser(user, membership) };
}

/**
 * The answer to a completed login (password, MFA code, recovery code, reset codes): the User
 * object and `X-Account-Lockout: 0`; after a recovery code, `X-Expires-At` (epoch seconds) says
 * until when that code still disables MFA.
 */
export async function loggedIn(db: Executor, user: UserRow, options: { recoveryCodeExpiresAt?: number } = {}) {
  const headers: Record<string, string> = { [lockoutHeader]: "0" };
  if (options.recoveryCodeExpiresAt !== undefined) headers["X-Expires-At"] = String(options.recoveryCodeExpiresAt);
  return new Reply(await issueUserObject(db, user), { headers });
}

export async function requireUser(db: Executor, userId: string): Promise<UserRow> {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw notFound("user");
  return user;
}

/**
 * A token for another namespace of the user's. Switching (`isSwitch`) also makes it the
 * namespace later logins land in.
 */
export async function issueNamespaceToken(
  db: Executor,
  userId: string,
  tenantId: string,
  { isSwitch }: { isSwitch: boolean },
): Promise<UserObject> {
  const user = await requireUser(db, userId);
  const membership = await roleIn(db, userId, tenantId);
  if (!membership) throw forbidden("you are not a member of this namespace");
  if (isSwitch) await db.update(users).set({ lastTenant: tenantId }).where(eq(users.id, userId));
  const token = signUserToken({ sub: user.id, tenant: tenantId });
  return { token, ...describeUser(user, membership) };
}

export async function getCurrentUser(db: Executor, userId: string, tokenTenant: string) {
  const user = await requireUser(db, userId);
  return describeUser(user, await roleIn(db, userId, tokenTenant));
}

/**
 * The bearer's User object as login answers it, with the bearer's own token: clients keep the
 * token of this answer as their session. No new token: that would let a token renew itself
 * for ever.
 */
export async function getBearerUserObject(
  db: Executor,
  bearer: { userId: string; tokenTenant: string; token: string },
): Promise<UserObject> {
  return { token: bearer.token, ...(await getCurrentUser(db, bearer.userId, bearer.tokenTenant)) };
}

export type UpdateUserInput = {
  name?: string;
  username?: string;
  email?: string;
  recovery_email?: string;
  password?: string;
  current_password?: string;
};

/** Applies a user's changes to their own account; 400/409 name the offending fields. */
export async function updateUser(db: Executor, userId: string, tokenTenant: string, input: UpdateUserInput) {
  const user = await requireUser(db, userId);
  const email = input.email ?? user.email;
  const invalid: { field: string; message: string }[] = [];
  if (input.recovery_email !== undefined) {
    if (input.recovery_email === "" && user.recoveryEmail) {
      invalid.push({ field: "recovery_email", message: "once set, the recovery e-mail cannot be removed" });
    }
    if (input.recovery_email === email) {
      invalid.push({ field: "recovery_email", message: "must differ from the e-mail" });
    }
  } else if (input.email !== undefined && input.email === user.recoveryEmail) {
    invalid.push({ field: "email", message: "must differ from the recovery e-mail" });
  }
  if (input.password !== undefined && !input.current_password) {
    invalid.push({ field: "current_password", message: "required to change the password" });
  }
  if (invalid.length > 0) throw new ValidationError(invalid, true);
  if (input.password !== undefined && !(await verifyPassword(user.passwordHash, input.current_password ?? ""))) {
    throw forbidden("the current password is wrong");
  }
  const taken = await conflictingFields(db, { username: input.username, email: input.email }, userId);
  if (taken.length > 0) throw new FieldConflictError(taken);
  const changes: Partial<typeof users.$inferInsert> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.username !== undefined) changes.username = input.username;
  if (input.email !== undefined) changes.email = input.email;
  if (input.recovery_email) changes.recoveryEmail = input.recovery_email;
  if (input.password !== undefined) changes.passwordHash = await hashPassword(input.password);
  if (Object.keys(changes).length > 0) {
    try {
      await db.update(users).set(changes).where(eq(users.id, userId));
      if (changes.passwordHash) await forgetTokens(db, userId, "password_reset");
    } catch (error) {
      const fields = uniqueViolationFields(error);
      if (fields) throw new FieldConflictError(fields);
      throw error;
    }
  }
  return getCurrentUser(db, userId, tokenTenant);
}

/** Sets a password without the current one: for the admin CLI. */
export async function unscopedSetPassword(db: Executor, username: string, password: string) {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.username, username));
  if (!user) throw notFound(`user '${username}'`);
  await setPassword(db, user.id, password);
}

/** Sets a new password; every password-recovery link of the user dies with the old one. */
export async function setPassword(db: Executor, userId: string, password: string) {
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(password) })
    .where(eq(users.id, userId));
  await forgetTokens(db, userId, "password_reset");
}

/** Deletes an account; the namespaces it owns go with it (foreign keys cascade). */
export async function unscopedDeleteUser(db: Executor, username: string) {
  const deleted = await db.delete(users).where(eq(users.username, username)).returning({ id: users.id });
  if (deleted.length === 0) throw notFound(`user '${username}'`);
}

/**
 * Deletes the caller's account and its memberships. Refused while it owns namespaces: they would
 * go with it, devices and members included. The check is part of the DELETE, so a namespace
 * created meanwhile is not deleted with the account.
 */
export async function deleteOwnAccount(db: Executor, userId: string) {
  const owned = db.select({ name: namespaces.name }).from(namespaces).where(eq(namespaces.owner, userId));
  const deleted = await db
    .delete(users)
    .where(and(eq(users.id, userId), notExists(owned)))
    .returning({ id: users.id });
  if (deleted.length > 0) return { message: "account deleted" };
  const names = (await owned).map((namespace) => namespace.name);
  if (names.length === 0) throw notFound("user");
  throw conflict(`the account owns namespaces (${names.join(", ")}): delete them first`);
}

/** The deprecated per-id routes act only on the caller's own account. */
export function assertSelf(userId: string, id: string): string {
  if (userId !== id) throw forbidden("you can only change your own account");
  return userId;
}
