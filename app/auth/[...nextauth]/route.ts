import { handlers } from "@/lib/console/auth";

// Auth.js's own endpoints (session, CSRF token, sign-out) for the console's browser session.
export const { GET, POST } = handlers;
