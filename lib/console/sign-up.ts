"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "../db";
import { ApiError, FieldConflictError, ValidationError } from "../errors";
import { sourceAddress } from "../http/source";
import { registerBody } from "../schemas/users";
import { registerUser } from "../services/account-recovery";
import { signIn } from "./auth";

export type SignUpState = { message?: string; fields?: Record<string, string> };

/**
 * Creates the account with the same service as `POST /api/register`. Where no confirmation is
 * required, the person is signed in at once (the API token goes into the session cookie only).
 */
export async function signUp(_state: SignUpState, form: FormData): Promise<SignUpState> {
  const input = registerBody.safeParse({
    name: form.get("name"),
    email: form.get("email"),
    username: form.get("username"),
    password: form.get("password"),
  });
  if (!input.success) {
    const fields: Record<string, string> = {};
    for (const issue of input.error.issues) fields[String(issue.path[0])] ??= issue.message;
    return { fields };
  }
  try {
    const answer = await registerUser(getDb(), input.data, sourceAddress(await headers()));
    if (!("token" in answer)) redirect(`/signup/check-email?user=${encodeURIComponent(input.data.username)}`);
  } catch (error) {
    if (error instanceof FieldConflictError)
      return { fields: Object.fromEntries(error.fields.map((field) => [field, `this ${field} is already in use`])) };
    if (error instanceof ValidationError || error instanceof ApiError) return { message: error.message };
    throw error;
  }
  await signIn("credentials", { username: input.data.username, password: input.data.password, redirectTo: "/" });
  return {};
}
