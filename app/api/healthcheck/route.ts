import { healthcheck } from "@/lib/api/service";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { checkHealth } from "@/lib/services/service";

// GET /api/healthcheck
export const GET = route(healthcheck, () => checkHealth(getDb()));
