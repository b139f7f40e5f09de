"use server";

import { headers } from "next/headers";
import { getDb } from "../db";
import { ApiError } from "../errors";
import { sourceAddress } from "../http/source";
import { recoverPassword, resendConfirmation } from "../services/account-recovery";

/**
 * The console's mail requests as server actions (they work before the page's script runs), with
 * the services of `POST /api/user/recover_password` and `POST /api/user/resend_email`: the same
 * answer whether the account exists or not, the same limits per address.
 */

export type MailRequestState = { outcome?: "sent" | "refused"; message?: string };

async function request(send: (identifier: string, source: string) => Promise<unknown>, form: FormData) {
  const identifier = String(form.get("identifier") ?? "").trim();
  if (identifier.length < 3) return { outcome: "refused" as const, message: "Enter your username or e-mail." };
  try {
    await send(identifier.toLowerCase(), sourceAddress(await headers()));
    return { outcome: "sent" as const };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const message = error.status === 429 ? "Too many e-mails were asked for: try again later." : `${error.message}.`;
    return { outcome: "refused" as const, message };
  }
}

export async function requestPasswordReset(_state: MailRequestState, form: FormData): Promise<MailRequestState> {
  return request((identifier, source) => recoverPassword(getDb(), identifier, source), form);
}

export async function resendActivationMail(_state: MailRequestState, form: FormData): Promise<MailRequestState> {
  return request((identifier, source) => resendConfirmation(getDb(), identifier, source), form);
}
