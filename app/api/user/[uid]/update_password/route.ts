import * as api from "@/lib/api/account";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { updatePasswordFromToken } from "@/lib/services/account-recovery";

// POST /api/user/{uid}/update_password - set a new password with a recovery token
export const POST = route(api.updatePasswordFromToken, ({ params, body }) =>
  updatePasswordFromToken(getDb(), params.uid, body.token, body.password),
);
