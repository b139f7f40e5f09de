import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listWebhookDeliveries } from "@/lib/services/webhooks";

// GET /api/webhooks/{id}/deliveries - newest first, `status` filter
export const GET = route(api.listWebhookDeliveries, ({ scope, params, query }) =>
  listWebhookDeliveries(getDb(), scope, params.id, query),
);
