import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listSessions } from "@/lib/services/sessions";

// GET /api/sessions - the namespace's sessions, newest first
export const GET = route(api.listSessions, ({ scope, query }) => listSessions(getDb(), scope, query));
