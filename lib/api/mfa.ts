import { defineOperation } from "../http/operation";
import {
  authMfaBody,
  disableMfaBody,
  enableMfaBody,
  mfaCredentials,
  recoverMfaBody,
  requestMfaResetBody,
  resetMfaBody,
  resetMfaParams,
} from "../schemas/mfa";
import { currentUser, messageReply, userObject } from "../schemas/users";

const tag = "mfa";
const cloud = { isCloudOnly: true } as const;
const loginErrors = {
  401: "invalid token or code",
  429: "locked out; see X-Account-Lockout",
};

const authMfaFields = {
  method: "POST",
  tag,
  summary: "Finish an MFA login with the X-MFA-Token of the login and a current code",
  access: { kind: "public" },
  body: authMfaBody,
  response: userObject,
  errors: loginErrors,
  ...cloud,
} as const;

export const authMfa = defineOperation({ id: "authMfa", path: "/api/mfa/auth", ...authMfaFields });

export const authMfaAlias = defineOperation({ id: "authMfaAlias", path: "/api/user/mfa/auth", ...authMfaFields });

export const recoverMfa = defineOperation({
  id: "recoverMfa",
  method: "POST",
  path: "/api/user/mfa/recover",
  tag,
  summary: "Log in with a recovery code; for 10 minutes (X-Expires-At) it also disables MFA",
  access: { kind: "public" },
  body: recoverMfaBody,
  response: userObject,
  errors: loginErrors,
  ...cloud,
});

export const requestMfaReset = defineOperation({
  id: "requestMfaReset",
  method: "POST",
  path: "/api/user/mfa/reset",
  tag,
  summary: "Mail one reset code to the e-mail and one to the recovery e-mail (the same answer for anyone)",
  access: { kind: "public" },
  body: requestMfaResetBody,
  response: messageReply,
  errors: { 429: "too many mails asked for (per account and per source); see Retry-After" },
  ...cloud,
});

export const generateMfa = defineOperation({
  id: "generateMfa",
  method: "GET",
  path: "/api/user/mfa/generate",
  tag,
  summary: "Generate MFA credentials: secret, otpauth link, its QR code and 6 recovery codes",
  access: { kind: "user" },
  response: mfaCredentials,
  errors: { 409: "MFA is already enabled" },
  ...cloud,
});

export const enableMfa = defineOperation({
  id: "enableMfa",
  method: "PUT",
  path: "/api/user/mfa/enable",
  tag,
  summary: "Enable MFA with the generated secret and recovery codes and a current code",
  access: { kind: "user" },
  body: enableMfaBody,
  response: currentUser,
  errors: {
    400: "no recovery e-mail, or not the generated secret and codes",
    401: "invalid code",
    409: "MFA is already enabled",
  },
  ...cloud,
});

export const disableMfa = defineOperation({
  id: "disableMfa",
  method: "PUT",
  path: "/api/user/mfa/disable",
  tag,
  summary: "Disable MFA with a current code or a recovery code",
  access: { kind: "user" },
  body: disableMfaBody,
  response: currentUser,
  errors: { 400: "MFA is not enabled", 401: "invalid code" },
  ...cloud,
});

export const resetMfa = defineOperation({
  id: "resetMfa",
  method: "PUT",
  path: "/api/user/mfa/reset/{user-id}",
  tag,
  summary: "Turn MFA off with the two mailed reset codes and log in",
  access: { kind: "public" },
  params: resetMfaParams,
  body: resetMfaBody,
  response: userObject,
  errors: loginErrors,
  ...cloud,
});

export const mfaOperations = [
  authMfa,
  authMfaAlias,
  recoverMfa,
  requestMfaReset,
  generateMfa,
  enableMfa,
  disableMfa,
  resetMfa,
];
