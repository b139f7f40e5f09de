import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { enableMfa } from "@/lib/services/mfa";

// PUT /api/user/mfa/enable - turn MFA on
export const PUT = route(api.enableMfa, ({ userId, tokenTenant, body }) =>
  enableMfa(getDb(), userId, tokenTenant, body),
);
