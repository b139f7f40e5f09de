import { defineOperation } from "../http/operation";
import { tenantParams } from "../schemas/common";
import {
  currentUser,
  loginBody,
  messageReply,
  registerBody,
  registerReply,
  updateUserBody,
  updateUserDataBody,
  updateUserPasswordBody,
  userIdParams,
  userObject,
} from "../schemas/users";

const tag = "users";
const loginErrors = {
  401: "wrong username or password",
  403: "account not confirmed",
  429: "locked out; see X-Account-Lockout",
};

export const login = defineOperation({
  id: "login",
  method: "POST",
  path: "/api/login",
  tag,
  summary: "Log in with a username or e-mail and a password",
  access: { kind: "public" },
  body: loginBody,
  response: userObject,
  errors: loginErrors,
});

export const authUser = defineOperation({
  id: "authUser",
  method: "POST",
  path: "/api/auth/user",
  tag,
  summary: "Auth a user (same as login)",
  access: { kind: "public" },
  body: loginBody,
  response: userObject,
  errors: loginErrors,
});

export const getCurrentUser = defineOperation({
  id: "getCurrentUser",
  method: "GET",
  path: "/api/auth/user",
  tag,
  summary: "The User object of the bearer token, as login answers it, with that same token",
  access: { kind: "user" },
  response: userObject,
});

export const getToken = defineOperation({
  id: "getToken",
  method: "GET",
  path: "/api/auth/token/{tenant}",
  tag,
  summary: "Get a token for one of the user's namespaces",
  access: { kind: "user" },
  params: tenantParams,
  response: userObject,
  errors: { 403: "not a member" },
});

export const switchNamespaceToken = defineOperation({
  id: "switchNamespaceToken",
  method: "GET",
  path: "/api/token/{tenant}",
  tag,
  summary: "Get a new namespace's token (switches the active namespace)",
  access: { kind: "user" },
  params: tenantParams,
  response: userObject,
  errors: { 403: "not a member" },
});

export const registerUser = defineOperation({
  id: "registerUser",
  method: "POST",
  path: "/api/register",
  tag,
  summary: "Register a user (the User object, or a message while the account awaits its e-mail confirmation)",
  access: { kind: "public" },
  body: registerBody,
  response: registerReply,
  hasFieldNameErrors: true,
  errors: {
    400: "array of invalid field names",
    409: "array of fields already in use",
    429: "too many activation mails asked for",
  },
});

const updateErrors = {
  400: "array of invalid field names",
  403: "wrong current password",
  409: "array of fields already in use",
};

export const updateUser = defineOperation({
  id: "updateUser",
  method: "PATCH",
  path: "/api/users",
  tag,
  summary: "Update the current user",
  access: { kind: "user" },
  body: updateUserBody,
  response: currentUser,
  hasFieldNameErrors: true,
  errors: updateErrors,
});

export const updateUserData = defineOperation({
  id: "updateUserData",
  method: "PATCH",
  path: "/api/users/{id}/data",
  tag,
  summary: "Update user data (deprecated: use PATCH /api/users)",
  access: { kind: "user" },
  params: userIdParams,
  body: updateUserDataBody,
  response: currentUser,
  hasFieldNameErrors: true,
  isDeprecated: true,
  errors: updateErrors,
});

export const updateUserPassword = defineOperation({
  id: "updateUserPassword",
  method: "PATCH",
  path: "/api/users/{id}/password",
  tag,
  summary: "Update user password (deprecated: use PATCH /api/users)",
  access: { kind: "user" },
  params: userIdParams,
  body: updateUserPasswordBody,
  response: currentUser,
  hasFieldNameErrors: true,
  isDeprecated: true,
  errors: updateErrors,
});

export const deleteUser = defineOperation({
  id: "deleteUser",
  method: "DELETE",
  path: "/api/user",
  tag,
  summary: "Delete the current user's account (refused while it owns namespaces)",
  access: { kind: "user" },
  response: messageReply,
  errors: { 409: "the account owns namespaces: delete them first" },
});

export const userOperations = [
  login,
  authUser,
  getCurrentUser,
  getToken,
  switchNamespaceToken,
  registerUser,
  updateUser,
  updateUserData,
  updateUserPassword,
  deleteUser,
];
