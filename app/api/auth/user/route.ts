import * as api from "@/lib/api/users";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { loginUser } from "@/lib/services/login";
import { getBearerUserObject } from "@/lib/services/users";

// POST /api/auth/user - auth a user, as login
export const POST = route(api.authUser, ({ body, source }) => loginUser(getDb(), body, source));

// GET /api/auth/user - the bearer's User object, with the bearer's token
export const GET = route(api.getCurrentUser, ({ userId, tokenTenant, token }) =>
  getBearerUserObject(getDb(), { userId, tokenTenant, token }),
);
