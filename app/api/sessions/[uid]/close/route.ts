import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { closeSession } from "@/lib/services/sessions";

// POST /api/sessions/{uid}/close - mark it inactive and drop its connection
export const POST = route(api.closeSession, ({ scope, params, body }) =>
  closeSession(getDb(), scope, params.uid, body.device),
);
