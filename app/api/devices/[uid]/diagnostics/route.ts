import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getDeviceDiagnostics } from "@/lib/services/diagnostics";

// GET /api/devices/{uid}/diagnostics
export const GET = route(api.getDeviceDiagnostics, ({ scope, params }) =>
  getDeviceDiagnostics(getDb(), scope, params.uid),
);
