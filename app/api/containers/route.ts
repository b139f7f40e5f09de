import * as api from "@/lib/api/containers";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listContainers } from "@/lib/services/containers";

// GET /api/containers - the namespace's containers
export const GET = route(api.listContainers, ({ scope, query }) => listContainers(getDb(), scope, query));
