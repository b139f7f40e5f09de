import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { registerUser } from "@/lib/services/account-recovery";

// POST /api/register - register a user
export const POST = route(api.registerUser, ({ body, source }) => registerUser(getDb(), body, source));
