import * as api from "@/lib/api/audit";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { streamedResponse } from "@/lib/http/streamed-body";
import { exportAudit } from "@/lib/services/audit";

// GET /api/audit/export - the filtered audit trail as JSON lines
export const GET = route(api.exportAudit, ({ request, scope, query }) =>
  streamedResponse(request, exportAudit(getDb(), scope, query), {
    "content-type": "application/x-ndjson",
    "content-disposition": `attachment; filename="audit-${new Date().toISOString().slice(0, 10)}.jsonl"`,
  }),
);
