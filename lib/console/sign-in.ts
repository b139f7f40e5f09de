"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "../db";
import { ApiError } from "../errors";
import { sourceAddress } from "../http/source";
import { requestMfaReset } from "../services/mfa";
import { SignInRefused, signIn, signOut } from "./auth";
import { safeNext } from "./next-path";

/**
 * The sign-in steps as server actions, so the API token only ever travels from the server into
 * the httpOnly session cookie. The MFA step's ticket waits in an httpOnly cookie of its own.
 */

export type SignInState = {
  message?: string;
  /** Epoch seconds until which this account is locked for this address. */
  lockedUntil?: number;
  unconfirmed?: boolean;
  /** What was typed, given back after a refusal: a form reset by its action shows it again. */
  typed?: Record<string, string>;
};

const mfaCookie = "das.mfa";
const mfaCookieSeconds = 300;

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

async function attempt(credentials: Record<string, string>, next: string): Promise<SignInState> {
  try {
    await signIn("credentials", { ...credentials, redirect: false });
  } catch (error) {
    if (!(error instanceof SignInRefused)) throw error;
    const { code, detail } = error;
    if (code === "mfa" && detail.mfaToken) {
      const ticket = JSON.stringify({ token: detail.mfaToken, identifier: credentials.username });
      (await cookies()).set(mfaCookie, ticket, {
        httpOnly: true,
        sameSite: "strict",
        path: "/",
        maxAge: mfaCookieSeconds,
      });
      redirect(`/login/mfa?next=${encodeURIComponent(next)}`);
    }
    return {
      message: detail.message,
      lockedUntil: detail.lockedUntil && detail.lockedUntil * 1000 > Date.now() ? detail.lockedUntil : undefined,
      unconfirmed: code === "unconfirmed" || undefined,
    };
  }
  (await cookies()).delete(mfaCookie);
  redirect(next);
}

async function mfaTicket(): Promise<{ token: string; identifier: string } | undefined> {
  try {
    const ticket = JSON.parse((await cookies()).get(mfaCookie)?.value ?? "");
    return typeof ticket?.token === "string" && typeof ticket?.identifier === "string" ? ticket : undefined;
  } catch {
    return undefined;
  }
}

export async function signInWithPassword(_state: SignInState, form: FormData): Promise<SignInState> {
  const next = safeNext(form.get("next"));
  return attempt({ username: text(form, "username"), password: String(form.get("password") ?? "") }, next);
}

export async function signInWithCode(_state: SignInState, form: FormData): Promise<SignInState> {
  const next = safeNext(form.get("next"));
  const ticket = await mfaTicket();
  if (!ticket) redirect(`/login?next=${encodeURIComponent(next)}&expired=1`);
  return attempt({ token: ticket.token, code: text(form, "code") }, next);
}

export async function signInWithRecoveryCode(_state: SignInState, form: FormData): Promise<SignInState> {
  const next = safeNext(form.get("next"));
  const ticket = await mfaTicket();
  if (!ticket) redirect(`/login?next=${encodeURIComponent(next)}&expired=1`);
  return attempt({ identifier: ticket.identifier, recovery_code: text(form, "recovery_code") }, next);
}

export type ResetMailState = { isSent?: boolean; message?: string };

/** Mails the two MFA reset codes to the account of the login in progress (its e-mail and recovery e-mail). */
export async function sendMfaResetCodes(_state: ResetMailState, form: FormData): Promise<ResetMailState> {
  const next = safeNext(form.get("next"));
  const ticket = await mfaTicket();
  if (!ticket) redirect(`/login?next=${encodeURIComponent(next)}&expired=1`);
  try {
    await requestMfaReset(getDb(), ticket.identifier, sourceAddress(await headers()));
    return { isSent: true };
  } catch (error) {
    if (error instanceof ApiError) return { message: error.message };
    throw error;
  }
}

export async function signInWithResetCodes(_state: SignInState, form: FormData): Promise<SignInState> {
  const next = safeNext(form.get("next"));
  const ticket = await mfaTicket();
  if (!ticket) redirect(`/login?next=${encodeURIComponent(next)}&expired=1`);
  const typed = {
    main_email_code: text(form, "main_email_code"),
    recovery_email_code: text(form, "recovery_email_code"),
  };
  return { ...(await attempt({ identifier: ticket.identifier, ...typed, reset: "mfa" }, next)), typed };
}

export async function signOutOfConsole() {
  await signOut({ redirectTo: "/login" });
}
