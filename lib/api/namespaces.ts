import { z } from "zod";
import { defineOperation } from "../http/operation";
import { tenantParams } from "../schemas/common";
import {
  acceptInvitationBody,
  addMemberBody,
  createNamespaceBody,
  editNamespaceBody,
  invitationQuery,
  invitedUserStatus,
  listNamespacesQuery,
  memberParams,
  namespaceObject,
  sessionRecordBody,
  updateMemberBody,
} from "../schemas/namespaces";
import { messageReply, userObject } from "../schemas/users";

const tag = "namespaces";
const inPath = { tenantFromPath: true } as const;

export const listNamespaces = defineOperation({
  id: "listNamespaces",
  method: "GET",
  path: "/api/namespaces",
  tag,
  summary: "The caller's namespaces",
  access: { kind: "principal" },
  query: listNamespacesQuery,
  response: namespaceObject,
  isList: true,
});

export const createNamespace = defineOperation({
  id: "createNamespace",
  method: "POST",
  path: "/api/namespaces",
  tag,
  summary: "Create a namespace owned by the caller",
  access: { kind: "user" },
  body: createNamespaceBody,
  response: namespaceObject,
  errors: { 409: "name taken" },
});

export const getNamespace = defineOperation({
  id: "getNamespace",
  method: "GET",
  path: "/api/namespaces/{tenant}",
  tag,
  summary: "Get a namespace",
  access: { kind: "tenant", permission: "namespace.read", ...inPath },
  params: tenantParams,
  response: namespaceObject,
});

export const editNamespace = defineOperation({
  id: "editNamespace",
  method: "PUT",
  path: "/api/namespaces/{tenant}",
  tag,
  summary: "Edit a namespace's name and settings",
  access: { kind: "tenant", permission: "namespace.update", ...inPath },
  params: tenantParams,
  body: editNamespaceBody,
  response: namespaceObject,
  errors: { 409: "name taken" },
});

export const deleteNamespace = defineOperation({
  id: "deleteNamespace",
  method: "DELETE",
  path: "/api/namespaces/{tenant}",
  tag,
  summary: "Delete a namespace with its devices, keys and sessions",
  access: { kind: "tenant", permission: "namespace.delete", ...inPath },
  params: tenantParams,
});

export const addMember = defineOperation({
  id: "addMember",
  method: "POST",
  path: "/api/namespaces/{tenant}/members",
  tag,
  summary:
    "Add a member by username or e-mail (`identifier`, or the same under `username` or `email`); in the cloud edition with mail, invite them: pending until accepted",
  access: { kind: "tenant", permission: "member.add", ...inPath },
  params: tenantParams,
  body: addMemberBody,
  response: namespaceObject,
  errors: { 404: "no such user", 409: "already a member" },
});

export const lookupInvitedUser = defineOperation({
  id: "lookupInvitedUser",
  method: "GET",
  path: "/api/namespaces/{tenant}/members/{uid}/accept-invite",
  tag,
  summary: "Whether the account invited by the mail's link is confirmed (the link's sig authenticates)",
  access: { kind: "public" },
  params: memberParams,
  query: invitationQuery,
  response: invitedUserStatus,
  isCloudOnly: true,
  errors: { 403: "invalid or expired invitation" },
});

export const acceptInvitation = defineOperation({
  id: "acceptInvitation",
  method: "PATCH",
  path: "/api/namespaces/{tenant}/members/accept-invite",
  tag,
  summary: "Accept the invitation of the mail's link (as the invited user)",
  access: { kind: "user" },
  params: tenantParams,
  body: acceptInvitationBody,
  response: messageReply,
  isCloudOnly: true,
  errors: { 403: "invalid or expired invitation, or one for another account" },
});

export const updateMember = defineOperation({
  id: "updateMember",
  method: "PATCH",
  path: "/api/namespaces/{tenant}/members/{uid}",
  tag,
  summary: "Change a member's role",
  access: { kind: "tenant", permission: "member.update", ...inPath },
  params: memberParams,
  body: updateMemberBody,
  response: namespaceObject,
});

export const removeMember = defineOperation({
  id: "removeMember",
  method: "DELETE",
  path: "/api/namespaces/{tenant}/members/{uid}",
  tag,
  summary: "Remove a member",
  access: { kind: "tenant", permission: "member.remove", ...inPath },
  params: memberParams,
  response: namespaceObject,
});

export const leaveNamespace = defineOperation({
  id: "leaveNamespace",
  method: "DELETE",
  path: "/api/namespaces/{tenant}/members",
  tag,
  summary:
    "Leave the namespace (any member but the owner); answers the User object with a token for the caller's next namespace",
  access: { kind: "user" },
  params: tenantParams,
  response: userObject,
  errors: { 403: "the owner cannot leave", 404: "not a member of this namespace" },
});

export const getSessionRecord = defineOperation({
  id: "getSessionRecord",
  method: "GET",
  path: "/api/users/security",
  tag,
  summary: "Whether the namespace records sessions",
  access: { kind: "tenant", permission: "session-record.read" },
  response: z.boolean(),
});

export const setSessionRecord = defineOperation({
  id: "setSessionRecord",
  method: "PUT",
  path: "/api/users/security/{tenant}",
  tag,
  summary: "Turn session recording on or off",
  access: { kind: "tenant", permission: "session-record.update", ...inPath },
  params: tenantParams,
  body: sessionRecordBody,
  response: z.boolean(),
});

export const namespaceOperations = [
  listNamespaces,
  createNamespace,
  getNamespace,
  editNamespace,
  deleteNamespace,
  addMember,
  lookupInvitedUser,
  acceptInvitation,
  updateMember,
  removeMember,
  leaveNamespace,
  getSessionRecord,
  setSessionRecord,
];
