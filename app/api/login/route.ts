import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { loginUser } from "@/lib/services/login";

// POST /api/login - log in with a username or e-mail
export const POST = route(api.login, ({ body, source }) => loginUser(getDb(), body, source));
