import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { resetMfa } from "@/lib/services/mfa";

// PUT /api/user/mfa/reset/{user-id} - turn MFA off with both mailed codes
export const PUT = route(api.resetMfa, ({ params, body, source }) =>
  resetMfa(getDb(), params["user-id"], body, source),
);
