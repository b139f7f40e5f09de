import * as api from "@/lib/api/tags";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listTags } from "@/lib/services/tags";

// GET /api/tags - the namespace's tags
export const GET = route(api.listTags, ({ scope, query }) => listTags(getDb(), scope, query));
