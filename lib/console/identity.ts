import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { MemberRole } from "../auth/roles";
import { getConfig, publicUrl } from "../config";
import { getDb } from "../db";
import { ApiError } from "../errors";
import { describeServer } from "../services/service";
import { getCurrentUser } from "../services/users";
import { auth } from "./auth";

/**
 * Who the console's page is for: the session's user, namespace and current role (read from the
 * database on every page, like the API does), or a redirect to the login page and back.
 */
export async function consoleIdentity() {
  const signedIn = await sessionUser();
  if (!signedIn) {
    const here = (await headers()).get("x-console-path") ?? "/dashboard";
    redirect(`/login?next=${encodeURIComponent(here)}`);
  }
  const { session, user } = signedIn;
  return {
    user: { id: user.id, name: user.name, username: user.user, email: user.email },
    tenant: user.tenant,
    role: (user.role || undefined) as MemberRole | undefined,
    edition: getConfig().EDITION,
    info: describeServer(),
    freePlanDevices: getConfig().FREE_PLAN_DEVICES,
    publicUrl: publicUrl(getConfig()),
    recoveryExpiresAt: session.recoveryExpiresAt,
  };
}

/** The session and its user, when the cookie holds a session whose user still exists. */
export async function sessionUser() {
  const session = await auth();
  if (!session?.user?.id) return undefined;
  try {
    return { session, user: await getCurrentUser(getDb(), session.user.id, session.tenant) };
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}
