"use server";

import { getDb } from "../db";
import { ApiError } from "../errors";
import { issueNamespaceToken, issueUserObject, requireUser } from "../services/users";
import { auth, updateSession } from "./auth";

/**
 * Moves the browser session to another namespace of the user's, with the same service as
 * `GET /api/auth/token/{tenant}`; the new token goes into the session cookie only.
 */
export async function switchNamespace(tenant: string): Promise<{ message?: string }> {
  const session = await auth();
  if (!session?.user?.id) return { message: "Your session has ended: log in again." };
  try {
    const user = await issueNamespaceToken(getDb(), session.user.id, tenant, { isSwitch: true });
    await updateSession({ switchToken: user.token });
    return {};
  } catch (error) {
    if (error instanceof ApiError) return { message: "You are not a member of this namespace." };
    throw error;
  }
}

/**
 * After the session's namespace is gone for the user (they left it, or deleted it): the session
 * moves to the namespace a new login would land in, or to none, so that no later call carries a
 * token of a namespace that no longer exists. Answers that namespace's tenant ("" for none).
 */
export async function leaveSessionNamespace(): Promise<{ tenant: string; message?: string }> {
  const session = await auth();
  if (!session?.user?.id) return { tenant: "", message: "Your session has ended: log in again." };
  const db = getDb();
  const user = await issueUserObject(db, await requireUser(db, session.user.id));
  await updateSession({ switchToken: user.token });
  return { tenant: user.tenant };
}
