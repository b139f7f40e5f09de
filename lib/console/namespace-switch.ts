"use server";

import { getDb } from "../db";
import { ApiError } from "../errors";
import { issueNamespaceToken } from "../services/users";
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
