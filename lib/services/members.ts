import { and, eq } from "drizzle-orm";
import { members, namespaces } from "@/models/namespaces";
import type { Scope } from "../auth/credentials";
import { isRoleAbove, type MemberRole } from "../auth/roles";
import type { Executor } from "../db";
import { conflict, forbidden, isUniqueViolation, notFound } from "../errors";
import { auditChange, audited } from "./audit";
import { invitesByMail, sendInvitation } from "./invitations";
import { getNamespace } from "./namespaces";
import { findUserByIdentifier, issueUserObject, requireUser } from "./users";

/** Nobody grants the owner role (a namespace has one owner) or a role above their own. */
function assertMayGrant(scope: Scope, role: MemberRole) {
  if (role === "owner") throw forbidden("the owner role cannot be granted");
  if (isRoleAbove(role, scope.role)) throw forbidden(`a ${scope.role} cannot grant the ${role} role`);
}

/** The member the actor acts on: never themselves, and only someone whose role is below theirs. */
async function targetMember(db: Executor, scope: Scope, userId: string) {
  if (userId === scope.actorId) throw forbidden("you cannot change your own membership");
  const [member] = await db
    .select({ role: members.role })
    .from(members)
    .where(and(eq(members.tenantId, scope.tenantId), eq(members.userId, userId)));
  if (!member) throw notFound("member");
  if (!isRoleAbove(scope.role, member.role))
    throw forbidden(`a ${scope.role} cannot act on a member whose role is ${member.role}`);
  return member;
}

/** Adds a member, or, where members are invited by mail, a pending member and the invitation mail. */
export async function addMember(db: Executor, scope: Scope, input: { identifier: string; role: MemberRole }) {
  assertMayGrant(scope, input.role);
  const user = await findUserByIdentifier(db, input.identifier);
  if (!user) throw notFound("user");
  const isInvited = invitesByMail();
  try {
    await db.transaction(async (tx) => {
      await tx.insert(members).values({
        tenantId: scope.tenantId,
        userId: user.id,
        role: input.role,
        status: isInvited ? "pending" : "accepted",
      });
      await auditChange(
        tx,
        scope,
        isInvited ? "member.invite" : "member.add",
        { type: "user", id: user.id },
        { username: user.username, role: input.role },
      );
      if (!isInvited) return;
      const [namespace] = await tx
        .select({ name: namespaces.name })
        .from(namespaces)
        .where(eq(namespaces.tenantId, scope.tenantId));
      await sendInvitation(tx, scope.tenantId, namespace?.name ?? "", user);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("this user is already a member or invited");
    throw error;
  }
  return getNamespace(db, scope);
}

export async function updateMember(db: Executor, scope: Scope, userId: string, role: MemberRole) {
  const member = await targetMember(db, scope, userId);
  assertMayGrant(scope, role);
  // Conditional on the role just checked, so a concurrent change cannot be overwritten.
  await audited(
    db,
    scope,
    "member.update",
    async (tx) => {
      const updated = await tx
        .update(members)
        .set({ role })
        .where(and(eq(members.tenantId, scope.tenantId), eq(members.userId, userId), eq(members.role, member.role)))
        .returning({ userId: members.userId });
      if (updated.length === 0) throw conflict("the member changed meanwhile: try again");
    },
    () => ({ target: { type: "user", id: userId }, details: { from: member.role, role } }),
  );
  return getNamespace(db, scope);
}

export async function removeMember(db: Executor, scope: Scope, userId: string) {
  const member = await targetMember(db, scope, userId);
  await audited(
    db,
    scope,
    "member.remove",
    async (tx) => {
      const removed = await tx
        .delete(members)
        .where(and(eq(members.tenantId, scope.tenantId), eq(members.userId, userId), eq(members.role, member.role)))
        .returning({ userId: members.userId });
      if (removed.length === 0) throw conflict("the member changed meanwhile: try again");
    },
    () => ({ target: { type: "user", id: userId }, details: { role: member.role } }),
  );
  return getNamespace(db, scope);
}

/** Deletes a membership that is not the owner's (a namespace keeps its one owner until it is deleted). */
async function deleteMembershipOfNonOwner(db: Executor, tenantId: string, userId: string, ownerRefusal: string) {
  const [member] = await db
    .select({ role: members.role })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.userId, userId)));
  if (!member) throw notFound("member");
  if (member.role === "owner") throw forbidden(ownerRefusal);
  await db.delete(members).where(and(eq(members.tenantId, tenantId), eq(members.userId, userId)));
}

/**
 * The user leaves the namespace (or declines its invitation); their API keys of it go with the
 * membership. The owner cannot. The answer carries a token for the namespace the user lands in
 * next (none when this was their last).
 */
export async function leaveNamespace(db: Executor, userId: string, tenantId: string) {
  await deleteMembershipOfNonOwner(db, tenantId, userId, "the owner cannot leave the namespace: delete it instead");
  return issueUserObject(db, await requireUser(db, userId));
}

/** Adds a member without an acting user: for the admin CLI. */
export async function unscopedAddMember(db: Executor, tenantId: string, userId: string, role: MemberRole) {
  if (role === "owner") throw forbidden("the owner role cannot be granted");
  try {
    await db.insert(members).values({ tenantId, userId, role });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("this user is already a member");
    throw error;
  }
}

/** Removes a member without an acting user: for the admin CLI. The owner stays. */
export async function unscopedRemoveMember(db: Executor, tenantId: string, userId: string) {
  await deleteMembershipOfNonOwner(db, tenantId, userId, "the owner cannot be removed");
}
