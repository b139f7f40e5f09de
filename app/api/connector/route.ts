import * as api from "@/lib/api/connectors";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createConnector, listConnectors } from "@/lib/services/connectors";

// POST /api/connector
export const POST = route(api.createConnector, ({ scope, body }) => createConnector(getDb(), scope, body));

// GET /api/connector - oldest first, `enable` filter
export const GET = route(api.listConnectors, ({ scope, query }) => listConnectors(getDb(), scope, query));
