import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getSession, unscopedSetAuthenticated } from "@/lib/services/sessions";

// GET /api/sessions/{uid} - with its device
export const GET = route(api.getSession, ({ scope, params }) => getSession(getDb(), scope, params.uid));

// POST /api/sessions/{uid} - the SSH gateway says whether the user authenticated
export const POST = route(api.setSessionAuthenticated, ({ params, body }) =>
  unscopedSetAuthenticated(getDb(), params.uid, body.authenticated),
);
