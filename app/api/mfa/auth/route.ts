import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { authMfa } from "@/lib/services/mfa";

// POST /api/mfa/auth - finish an MFA login
export const POST = route(api.authMfa, ({ body, source }) => authMfa(getDb(), body, source));
