import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { redeliverWebhook } from "@/lib/services/webhooks";

// POST /api/webhooks/{id}/deliveries/{delivery}/redeliver
export const POST = route(api.redeliverWebhook, ({ scope, params }) =>
  redeliverWebhook(getDb(), scope, params.id, params.delivery),
);
