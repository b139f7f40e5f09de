import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { issueNamespaceToken } from "@/lib/services/users";

// GET /api/auth/token/{tenant} - a token for one of the user's namespaces
export const GET = route(api.getToken, ({ userId, params }) =>
  issueNamespaceToken(getDb(), userId, params.tenant, { isSwitch: false }),
);
