import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listDevices } from "@/lib/services/devices";

// GET /api/devices - filtered, sorted, paged
export const GET = route(api.listDevices, ({ scope, query }) => listDevices(getDb(), scope, query));
