import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createSetupSession } from "@/lib/services/billing";

// POST /api/billing/setup-session - the processor's page to add a card
export const POST = route(api.createSetupSession, ({ scope, body }) =>
  createSetupSession(getDb(), scope, body.return_path),
);
