import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { recordSession } from "@/lib/services/sessions";

// POST /api/sessions/{uid}/record - a frame from the session's device or the gateway
export const POST = route(api.recordSession, ({ device, params, body }) =>
  recordSession(getDb(), device, params.uid, body),
);
