import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { requestMfaReset } from "@/lib/services/mfa";

// POST /api/user/mfa/reset - mail the two MFA reset codes
export const POST = route(api.requestMfaReset, ({ body, source }) => requestMfaReset(getDb(), body.identifier, source));
