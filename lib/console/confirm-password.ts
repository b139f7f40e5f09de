"use server";

import { headers } from "next/headers";
import { lockoutHeader } from "../auth/lockout";
import { getDb } from "../db";
import { ApiError } from "../errors";
import { sourceAddress } from "../http/source";
import { confirmOwnPassword } from "../services/login";
import { sessionUser } from "./identity";

export type PasswordCheck = { ok: true } | { ok: false; message: string; lockedUntil?: number };

/**
 * The signed-in person types their password again before turning MFA on: a session left open
 * on someone else's screen is not enough to bind a new authenticator to the account.
 */
export async function confirmPassword(password: string): Promise<PasswordCheck> {
  const signedIn = await sessionUser();
  if (!signedIn) return { ok: false, message: "Your session has ended: log in again." };
  try {
    await confirmOwnPassword(getDb(), signedIn.user.id, password, sourceAddress(await headers()));
    return { ok: true };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const lockedUntil = Number(error.headers[lockoutHeader] ?? 0) || undefined;
    return { ok: false, message: "The password is wrong.", lockedUntil };
  }
}
