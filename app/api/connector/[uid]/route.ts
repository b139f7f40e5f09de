import * as api from "@/lib/api/connectors";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteConnector, getConnector, updateConnector } from "@/lib/services/connectors";

// GET /api/connector/{uid}
export const GET = route(api.getConnector, ({ scope, params }) => getConnector(getDb(), scope, params.uid));

// PATCH /api/connector/{uid}
export const PATCH = route(api.updateConnector, ({ scope, params, body }) =>
  updateConnector(getDb(), scope, params.uid, body),
);

// DELETE /api/connector/{uid} - with the devices that are its containers
export const DELETE = route(api.deleteConnector, ({ scope, params }) => deleteConnector(getDb(), scope, params.uid));
