import { z } from "zod";
import { nameText } from "./common";

export const username = z
  .string()
  .regex(/^[a-zA-Z0-9-_.@]{3,30}$/, "3 to 30 letters, digits or - _ . @")
  .transform((value) => value.toLowerCase());
export const password = z.string().min(5, "at least 5 characters").max(30, "at most 30 characters");
export const email = z
  .email()
  .max(254)
  .transform((value) => value.toLowerCase());
export const personName = nameText().trim().min(3, "at least 3 characters").max(20, "at most 20 characters");

export const registerBody = z.object({
  name: personName,
  email,
  username,
  password,
  email_marketing: z.boolean().optional(),
});

/** A username or an e-mail address, as people type it to name an account. */
export const accountIdentifier = z
  .string()
  .trim()
  .min(3, "at least 3 characters")
  .max(254, "at most 254 characters")
  .transform((value) => value.toLowerCase());

/** Login takes a username or an e-mail address in `username`. */
export const loginBody = z.object({
  username: accountIdentifier,
  password: z.string().min(1, "required").max(256, "at most 256 characters"),
});

export const updateUserBody = z.object({
  name: personName.optional(),
  username: username.optional(),
  email: email.optional(),
  recovery_email: z.union([z.literal(""), email]).optional(),
  password: password.optional(),
  current_password: z.string().max(256).optional(),
});

export const updateUserDataBody = updateUserBody.pick({
  name: true,
  username: true,
  email: true,
  recovery_email: true,
});

export const updateUserPasswordBody = z.object({
  current_password: z.string().min(1).max(256),
  new_password: password,
});

export const userIdParams = z.object({ id: z.uuid() });

/** The User object returned by login and every operation that hands out a token. */
export const userObject = z.object({
  token: z.string(),
  id: z.string(),
  user: z.string(),
  name: z.string(),
  email: z.string(),
  recovery_email: z.string(),
  tenant: z.string(),
  role: z.string(),
  mfa: z.boolean(),
});
export type UserObject = z.infer<typeof userObject>;

/** The current user as account updates answer: the User object without a token. */
export const currentUser = userObject.omit({ token: true });

/** Registration answers with a message instead while accounts wait for their e-mail confirmation. */
export const registerReply = z.union([userObject, z.object({ message: z.string() })]);

export const messageReply = z.object({ message: z.string() });

/** Resend confirmation: a username or e-mail, 3 to 20 characters as the specification says. */
export const resendConfirmationBody = z.object({
  username: z
    .string()
    .trim()
    .min(3, "at least 3 characters")
    .max(20, "at most 20 characters")
    .transform((value) => value.toLowerCase()),
});

/** Recover password: `{username}` or `{email}`, one of the two. */
export const recoverPasswordBody = z
  .object({ username: username.optional(), email: email.optional() })
  .refine((body) => (body.username === undefined) !== (body.email === undefined), {
    message: "give either username or email",
    path: ["username"],
  });

export const updatePasswordFromTokenParams = z.object({ uid: z.uuid() });
export const updatePasswordFromTokenBody = z.object({ password, token: z.string().min(1).max(200) });

export const validateAccountQuery = z.object({ email, token: z.string().min(1).max(200) });
