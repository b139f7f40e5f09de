import { serverInfo } from "@/lib/api/service";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { describeServer } from "@/lib/services/service";
import { isSetUp } from "@/lib/services/setup";

// GET /info - version, endpoints and whether the first account exists
export const GET = route(serverInfo, async () => ({ ...describeServer(), setup: await isSetUp(getDb()) }));
