import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getSessionRecord } from "@/lib/services/namespaces";

// GET /api/users/security - whether the active namespace records sessions
export const GET = route(api.getSessionRecord, ({ scope }) => getSessionRecord(getDb(), scope));
