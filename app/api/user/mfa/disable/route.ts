import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { disableMfa } from "@/lib/services/mfa";

// PUT /api/user/mfa/disable - turn MFA off
export const PUT = route(api.disableMfa, ({ userId, tokenTenant, body }) =>
  disableMfa(getDb(), userId, tokenTenant, body),
);
