import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { setSessionRecord } from "@/lib/services/namespaces";

// PUT /api/users/security/{tenant} - turn session recording on or off
export const PUT = route(api.setSessionRecord, ({ scope, body }) =>
  setSessionRecord(getDb(), scope, body.session_record),
);
