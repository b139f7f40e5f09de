import { type NextRequest, NextResponse } from "next/server";

/** The console's pages; the sign-in pages and the API are not here. */
export const config = {
  matcher: [
    "/",
    "/dashboard/:path*",
    "/devices/:path*",
    "/sessions/:path*",
    "/keys/:path*",
    "/firewall/:path*",
    "/tags/:path*",
    "/activity/:path*",
    "/team/:path*",
    "/settings/:path*",
    "/account/:path*",
    "/announcements/:path*",
  ],
};

/**
 * Tells the console's layout which page was asked for, so that a visitor without a session goes
 * to `/login?next=<that page>` and comes back to it after signing in.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set("x-console-path", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.next({ request: { headers } });
}
