import * as api from "@/lib/api/connectors";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getConnectorInfo } from "@/lib/services/connectors";

// GET /api/connector/{uid}/info - the engine's own info, asked now
export const GET = route(api.getConnectorInfo, ({ scope, params }) => getConnectorInfo(getDb(), scope, params.uid));
