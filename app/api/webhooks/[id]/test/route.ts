import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { testWebhook } from "@/lib/services/webhooks";

// POST /api/webhooks/{id}/test
export const POST = route(api.testWebhook, ({ scope, params }) => testWebhook(getDb(), scope, params.id));
