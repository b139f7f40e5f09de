import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { recoverMfa } from "@/lib/services/mfa";

// POST /api/user/mfa/recover - log in with a recovery code
export const POST = route(api.recoverMfa, ({ body, source }) => recoverMfa(getDb(), body, source));
