import NextAuth, { CredentialsSignin, type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { sessionCookieName, sessionSecret } from "../auth/browser-session";
import { verifyUserToken } from "../auth/jwt";
import { lockoutHeader } from "../auth/lockout";
import { getConfig, publicUrl } from "../config";
import { getDb } from "../db";
import { ApiError } from "../errors";
import { sourceAddress } from "../http/source";
import { log } from "../log";
import { authMfaBody, recoverMfaBody, resetMfaBody } from "../schemas/mfa";
import { accountIdentifier, loginBody } from "../schemas/users";
import { loginUser } from "../services/login";
import { authMfa, recoverMfa, resetMfaOfAccount } from "../services/mfa";

/**
 * The console's sign-in (Auth.js): a credentials provider over the same login services as
 * `POST /api/login`, `POST /api/mfa/auth` and `POST /api/mfa/recover`. The session is a JWE
 * cookie (httpOnly) holding the API token; `lib/auth/browser-session.ts` reads it for the API.
 */

/** Why a sign-in step did not end in a session; the sign-in pages read `code`. */
export class SignInRefused extends CredentialsSignin {
  constructor(
    code: "invalid" | "locked" | "unconfirmed" | "mfa" | "expired",
    readonly detail: { message: string; lockedUntil?: number; mfaToken?: string; recoveryExpiresAt?: number },
  ) {
    super(detail.message);
    this.code = code;
  }
}

/** The four ways to sign in, told apart by their fields. */
const signInCredentials = z.union([
  loginBody,
  authMfaBody.transform((body) => ({ mfaToken: body.token, code: body.code })),
  recoverMfaBody,
  resetMfaBody.extend({ identifier: accountIdentifier, reset: z.literal("mfa") }),
]);

function refusal(error: unknown): never {
  if (!(error instanceof ApiError)) throw error;
  const lockedUntil = Number(error.headers[lockoutHeader] ?? 0) || undefined;
  const mfaToken = error.headers["X-MFA-Token"];
  if (mfaToken) throw new SignInRefused("mfa", { message: error.message, mfaToken });
  if (error.status === 429) throw new SignInRefused("locked", { message: error.message, lockedUntil });
  if (error.status === 403) throw new SignInRefused("unconfirmed", { message: error.message });
  if (error.message.includes("MFA token")) throw new SignInRefused("expired", { message: error.message });
  throw new SignInRefused("invalid", { message: error.message, lockedUntil });
}

async function signInWith(input: Record<string, unknown>, request: Request) {
  const parsed = signInCredentials.safeParse(input);
  if (!parsed.success) throw new SignInRefused("invalid", { message: "enter your username and password" });
  const credentials = parsed.data;
  const db = getDb();
  const source = sourceAddress(request.headers);
  try {
    const reply =
      "password" in credentials
        ? await loginUser(db, credentials, source)
        : "mfaToken" in credentials
          ? await authMfa(db, { token: credentials.mfaToken, code: credentials.code }, source)
          : "reset" in credentials
            ? await resetMfaOfAccount(db, credentials.identifier, credentials, source)
            : await recoverMfa(db, credentials, source);
    const recoveryExpiresAt = Number(reply.init.headers?.["X-Expires-At"] ?? 0) || undefined;
    return { id: reply.body.id, apiToken: reply.body.token, tenant: reply.body.tenant, recoveryExpiresAt };
  } catch (error) {
    refusal(error);
  }
}

declare module "next-auth" {
  interface User {
    apiToken?: string;
    tenant?: string;
    recoveryExpiresAt?: number;
  }
  interface Session {
    tenant: string;
    recoveryExpiresAt?: number;
    /** Only in an update: the token of the namespace the session switches to. */
    switchToken?: string;
  }
}

function authConfig(): NextAuthConfig {
  const config = getConfig();
  const secure = publicUrl(config).startsWith("https:");
  return {
    basePath: "/auth",
    secret: sessionSecret(),
    trustHost: true,
    session: { strategy: "jwt", maxAge: config.JWT_TTL_SECONDS },
    cookies: {
      sessionToken: {
        name: sessionCookieName(),
        options: { httpOnly: true, sameSite: "lax", path: "/", secure },
      },
    },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      Credentials({
        credentials: {
          username: {},
          password: {},
          token: {},
          code: {},
          identifier: {},
          recovery_code: {},
          main_email_code: {},
          recovery_email_code: {},
          reset: {},
        },
        authorize: (input, request) => signInWith(input, request),
      }),
    ],
    callbacks: {
      jwt({ token, user, trigger, session }) {
        if (user) {
          token.apiToken = user.apiToken;
          token.userId = user.id;
          token.tenant = user.tenant ?? "";
          token.recoveryExpiresAt = user.recoveryExpiresAt;
        }
        // A namespace switch (`switchNamespace`) hands over a token the server just signed.
        if (trigger === "update" && session?.switchToken) return acceptSwitchedToken(token, session.switchToken);
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          user: { ...session.user, id: String(token.userId) },
          tenant: String(token.tenant ?? ""),
          recoveryExpiresAt: typeof token.recoveryExpiresAt === "number" ? token.recoveryExpiresAt : undefined,
        };
      },
    },
    logger: {
      // A refused sign-in is an answer, not a fault of the server.
      error: (error: Error) => {
        if (!(error instanceof CredentialsSignin)) log.error("console session", { error: error.message });
      },
      warn: () => {},
    },
  };
}

/**
 * A token for the session only when it is a valid token of the same user: the update endpoint
 * is reachable from the browser, so nothing it sends is trusted beyond what the server signed.
 */
async function acceptSwitchedToken<T extends Record<string, unknown>>(token: T, apiToken: unknown) {
  if (typeof apiToken !== "string") return token;
  const claims = verifyUserToken(apiToken);
  if (!claims || claims.sub !== token.userId) return token;
  return { ...token, apiToken, tenant: claims.tenant, recoveryExpiresAt: undefined };
}

export const { handlers, auth, signIn, signOut, unstable_update: updateSession } = NextAuth(() => authConfig());
