import * as api from "@/lib/api/containers";
import { route } from "@/lib/http/route";
import { listContainers } from "@/lib/services/containers";

// GET /api/containers - the namespace's containers
export const GET = route(api.listContainers, ({ scope, query }) => listContainers(scope, query));
