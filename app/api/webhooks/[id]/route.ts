import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/services/webhooks";

// GET /api/webhooks/{id}
export const GET = route(api.getWebhook, ({ scope, params }) => getWebhook(getDb(), scope, params.id));

// PATCH /api/webhooks/{id}
export const PATCH = route(api.updateWebhook, ({ scope, params, body }) =>
  updateWebhook(getDb(), scope, params.id, body),
);

// DELETE /api/webhooks/{id}
export const DELETE = route(api.deleteWebhook, ({ scope, params }) => deleteWebhook(getDb(), scope, params.id));
