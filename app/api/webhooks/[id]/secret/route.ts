import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { rotateWebhookSecret } from "@/lib/services/webhooks";

// POST /api/webhooks/{id}/secret
export const POST = route(api.rotateWebhookSecret, ({ scope, params }) =>
  rotateWebhookSecret(getDb(), scope, params.id),
);
