import { defineOperation } from "../http/operation";
import {
  messageReply,
  recoverPasswordBody,
  resendConfirmationBody,
  updatePasswordFromTokenBody,
  updatePasswordFromTokenParams,
  validateAccountQuery,
} from "../schemas/users";

const tag = "users";
const mailErrors = { 429: "too many mails asked for (per account and per source); see Retry-After" };

export const resendConfirmation = defineOperation({
  id: "resendConfirmation",
  method: "POST",
  path: "/api/user/resend_email",
  tag,
  summary: "Resend the activation e-mail (the same answer for unknown users)",
  access: { kind: "public" },
  body: resendConfirmationBody,
  response: messageReply,
  errors: mailErrors,
});

export const recoverPassword = defineOperation({
  id: "recoverPassword",
  method: "POST",
  path: "/api/user/recover_password",
  tag,
  summary: "Mail a password-recovery link (the same answer for unknown users)",
  access: { kind: "public" },
  body: recoverPasswordBody,
  response: messageReply,
  errors: mailErrors,
});

export const updatePasswordFromToken = defineOperation({
  id: "updatePasswordFromToken",
  method: "POST",
  path: "/api/user/{uid}/update_password",
  tag,
  summary: "Set a new password with the token of a password-recovery e-mail",
  access: { kind: "public" },
  params: updatePasswordFromTokenParams,
  body: updatePasswordFromTokenBody,
  response: messageReply,
  errors: { 401: "invalid, used or expired token" },
});

export const validateAccount = defineOperation({
  id: "validateAccount",
  method: "GET",
  path: "/api/user/validation_account",
  tag,
  summary: "Activate an account with the link of its activation e-mail",
  access: { kind: "public" },
  query: validateAccountQuery,
  response: messageReply,
  errors: { 401: "invalid, used or expired link" },
});

export const accountOperations = [resendConfirmation, recoverPassword, updatePasswordFromToken, validateAccount];
