import * as api from "@/lib/api/namespaces";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createNamespace, listNamespaces } from "@/lib/services/namespaces";

// GET /api/namespaces - the caller's namespaces
export const GET = route(api.listNamespaces, ({ caller, query }) => listNamespaces(getDb(), caller, query));

// POST /api/namespaces - create a namespace owned by the caller
export const POST = route(api.createNamespace, ({ userId, body }) => createNamespace(getDb(), userId, body));
