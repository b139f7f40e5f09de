import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteNamespace, editNamespace, getNamespace } from "@/lib/services/namespaces";

// GET /api/namespaces/{tenant}
export const GET = route(api.getNamespace, ({ scope }) => getNamespace(getDb(), scope));

// PUT /api/namespaces/{tenant} - name and settings
export const PUT = route(api.editNamespace, ({ scope, body }) => editNamespace(getDb(), scope, body));

// DELETE /api/namespaces/{tenant} - with its devices, keys and sessions
export const DELETE = route(api.deleteNamespace, ({ scope }) => deleteNamespace(getDb(), scope));
