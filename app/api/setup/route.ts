import * as api from "@/lib/api/service";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { setUp } from "@/lib/services/setup";

// POST /api/setup?sign= - first run: the first account and its namespace
export const POST = route(api.setup, ({ query, body }) => setUp(getDb(), query.sign, body));
