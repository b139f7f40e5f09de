import { startSession } from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { unscopedStartSession } from "@/lib/services/sessions";

// POST /internal/sessions - the SSH gateway starts a session on a device
export const POST = route(startSession, ({ body }) =>
  unscopedStartSession(getDb(), {
    uid: body.uid,
    deviceUid: body.device_uid,
    username: body.username,
    ipAddress: body.ip_address,
    type: body.type,
    term: body.term,
  }),
);
