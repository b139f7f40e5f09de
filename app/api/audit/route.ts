import * as api from "@/lib/api/audit";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listAudit } from "@/lib/services/audit";

// GET /api/audit - the namespace's audit trail
export const GET = route(api.listAudit, ({ scope, query }) => listAudit(getDb(), scope, query));
