import { serverInfo } from "@/lib/api/service";
import { route } from "@/lib/http/route";
import { describeServer } from "@/lib/services/service";

// GET /info - version and endpoints
export const GET = route(serverInfo, () => describeServer());
