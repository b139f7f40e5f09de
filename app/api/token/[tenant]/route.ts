import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { switchNamespace } from "@/lib/services/users";

// GET /api/token/{tenant} - switch the active namespace
export const GET = route(api.switchNamespaceToken, ({ userId, params }) =>
  switchNamespace(getDb(), userId, params.tenant),
);
