import * as api from "@/lib/api/api-keys";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteApiKey, updateApiKey } from "@/lib/services/api-keys";

// PATCH /api/namespaces/api-key/{name} - rename or change the role
export const PATCH = route(api.updateApiKey, ({ scope, params, body }) =>
  updateApiKey(getDb(), scope, params.name, body),
);

// DELETE /api/namespaces/api-key/{name}
export const DELETE = route(api.deleteApiKey, ({ scope, params }) => deleteApiKey(getDb(), scope, params.name));
