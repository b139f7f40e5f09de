import { and, eq, gt, sql } from "drizzle-orm";
import { members } from "@/models/namespaces";
import { userTokens } from "@/models/user-tokens";
import type { UserRow } from "@/models/users";
import { users } from "@/models/users";
import { hashToken } from "../auth/token-hash";
import { type Config, getConfig } from "../config";
import type { Executor } from "../db";
import { forbidden } from "../errors";
import { queueMail } from "../mail/outbox";
import { invitationMail } from "../mail/templates";
import { consumeToken, issueToken, newLinkToken } from "./user-tokens";

const invitationSeconds = 7 * 24 * 3600;

/**
 * Whether an added member is invited by mail and stays pending until they accept, as in
 * ShellHub's cloud edition; that needs mail that is delivered. Elsewhere (the community edition,
 * or mails only kept in the outbox) members are accepted at once, as ShellHub's community does.
 */
export const invitesByMail = (config: Config = getConfig()) =>
  config.EDITION === "cloud" && config.SMTP_URL !== undefined;

// The mailed `sig` is bound to its namespace: what is stored is the hash of `tenant.sig`, so an
// invitation's sig accepts no other namespace's invitation of the same user.
const boundToken = (tenantId: string, sig: string) => `${tenantId}.${sig}`;

/** Mails `user` the link that accepts their pending membership (7 days; several invitations may be live). */
export async function sendInvitation(db: Executor, tenantId: string, namespaceName: string, user: UserRow) {
  const sig = newLinkToken();
  await issueToken(db, user.id, "invitation", invitationSeconds, {
    token: boundToken(tenantId, sig),
    replace: false,
  });
  await queueMail(db, invitationMail(user.email, user.name, namespaceName, tenantId, user.id, sig));
}

/**
 * What the invitation link's page needs to know before it asks the invited user to log in:
 * whether their account is confirmed. Only the holder of a live invitation learns it.
 */
export async function lookupInvitedUser(db: Executor, tenantId: string, userId: string, sig: string) {
  const [row] = await db
    .select({ isConfirmed: users.isConfirmed })
    .from(userTokens)
    .innerJoin(users, eq(users.id, userTokens.userId))
    .innerJoin(
      members,
      and(eq(members.userId, userTokens.userId), eq(members.tenantId, tenantId), eq(members.status, "pending")),
    )
    .where(
      and(
        eq(userTokens.purpose, "invitation"),
        eq(userTokens.tokenHash, hashToken(boundToken(tenantId, sig))),
        eq(userTokens.userId, userId),
        gt(userTokens.expiresAt, sql`now()`),
      ),
    );
  if (!row) throw forbidden("invalid or expired invitation");
  return { status: row.isConfirmed ? ("confirmed" as const) : ("not-confirmed" as const) };
}

/**
 * The invited user (logged in) accepts: their pending membership becomes a membership. Accepting
 * again, once a member, changes nothing and is no error (a second click on the link).
 */
export async function acceptInvitation(db: Executor, userId: string, tenantId: string, sig: string) {
  return db.transaction(async (tx) => {
    const [member] = await tx
      .select({ status: members.status })
      .from(members)
      .where(and(eq(members.tenantId, tenantId), eq(members.userId, userId)))
      .for("update");
    if (member?.status === "accepted") return { message: "you are a member of this namespace already" };
    const invited = await consumeToken(tx, "invitation", boundToken(tenantId, sig), userId);
    if (!member || !invited) throw forbidden("invalid or expired invitation, or one for another account");
    await tx
      .update(members)
      .set({ status: "accepted" })
      .where(and(eq(members.tenantId, tenantId), eq(members.userId, userId)));
    return { message: "invitation accepted: you are a member of this namespace" };
  });
}
