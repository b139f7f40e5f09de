import { createHash } from "node:crypto";
import { decode } from "next-auth/jwt";
import { getConfig, publicUrl } from "../config";
import { forbidden } from "../errors";
import { processSingleton } from "../process-state";
import { jwtSecret } from "./jwt";

/**
 * The console's browser session (Auth.js, `lib/console/auth.ts`): an encrypted, httpOnly cookie
 * that carries the user's API token. Browser JavaScript never sees the token; the route wrapper
 * reads the cookie as a credential next to `Authorization` and `X-API-KEY`.
 */

/** What the session cookie holds. `apiToken` is a user JWT of `lib/auth/jwt.ts`. */
export type BrowserSession = { apiToken: string; userId: string; tenant: string };

const isSecureOrigin = () => publicUrl(getConfig()).startsWith("https:");

/** The cookie's name: `__Secure-` where the console is served over HTTPS, as browsers require. */
export const sessionCookieName = () => (isSecureOrigin() ? "__Secure-das.session" : "das.session");

/** The key of the session cookie, derived from the JWT secret so every instance shares it. */
export const sessionSecret = () =>
  processSingleton("browser session secret", () =>
    createHash("sha256").update("browser-session\n").update(jwtSecret()).digest("base64url"),
  );

function readCookie(headers: Headers, name: string): string | undefined {
  for (const part of (headers.get("cookie") ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** The session of the request's cookie, if it carries a valid one. */
export async function readBrowserSession(headers: Headers): Promise<BrowserSession | undefined> {
  const name = sessionCookieName();
  const cookie = readCookie(headers, name);
  if (!cookie) return undefined;
  try {
    const claims = await decode({ token: cookie, secret: sessionSecret(), salt: name });
    const { apiToken, userId, tenant } = claims ?? {};
    if (typeof apiToken !== "string" || typeof userId !== "string" || typeof tenant !== "string") return undefined;
    return { apiToken, userId, tenant };
  } catch {
    return undefined;
  }
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether `origin` is the service itself: its public address (`PUBLIC_URL`) or the address the
 * request was sent to (its `Host`), as a browser names the page that makes the request.
 */
export function isOwnOrigin(origin: string | null | undefined, headers: Headers): boolean {
  if (!origin) return false;
  if (origin === new URL(publicUrl(getConfig())).origin) return true;
  const host = headers.get("host");
  return host !== null && (origin === `http://${host}` || origin === `https://${host}`);
}

/**
 * Refuses a cookie-authenticated write from another site (CSRF): its `Origin` must be the
 * service's own. Browsers send `Origin` on every cross-site write and on same-origin `fetch`
 * writes.
 */
export function checkSameOrigin(method: string, headers: Headers) {
  if (safeMethods.has(method.toUpperCase())) return;
  const origin = headers.get("origin");
  if (!origin) throw forbidden("a write with the console's session needs the Origin header");
  if (!isOwnOrigin(origin, headers)) throw forbidden(`a write from ${origin} may not use the console's session`);
}
