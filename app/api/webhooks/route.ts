import * as api from "@/lib/api/webhooks";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createWebhook, listWebhooks } from "@/lib/services/webhooks";

// POST /api/webhooks
export const POST = route(api.createWebhook, ({ scope, body }) => createWebhook(getDb(), scope, body));

// GET /api/webhooks - oldest first
export const GET = route(api.listWebhooks, ({ scope, query }) => listWebhooks(getDb(), scope, query));
