import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { playSession } from "@/lib/services/sessions";

// GET /api/sessions/{uid}/play - the recorded frames, in order
export const GET = route(api.playSession, ({ scope, params }) => playSession(getDb(), scope, params.uid));
