import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { issueNamespaceToken } from "@/lib/services/users";

// GET /api/token/{tenant} - switch the active namespace: later logins land in it too
export const GET = route(api.switchNamespaceToken, ({ userId, params }) =>
  issueNamespaceToken(getDb(), userId, params.tenant, { isSwitch: true }),
);
