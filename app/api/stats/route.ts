import * as api from "@/lib/api/stats";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getStats } from "@/lib/services/stats";

// GET /api/stats - the namespace's device and session counts
export const GET = route(api.getStats, ({ scope }) => getStats(getDb(), scope));
