import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { authMfa } from "@/lib/services/mfa";

// POST /api/user/mfa/auth - alias of POST /api/mfa/auth
export const POST = route(api.authMfaAlias, ({ body, source }) => authMfa(getDb(), body, source));
