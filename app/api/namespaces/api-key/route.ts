import * as api from "@/lib/api/api-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createApiKey, listApiKeys } from "@/lib/services/api-keys";

// POST /api/namespaces/api-key - the key is returned once, in `id`
export const POST = route(api.createApiKey, ({ scope, body }) => createApiKey(getDb(), scope, body));

// GET /api/namespaces/api-key
export const GET = route(api.listApiKeys, ({ scope, query }) => listApiKeys(getDb(), scope, query));
