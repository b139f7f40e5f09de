import * as api from "@/lib/api/account";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { recoverPassword } from "@/lib/services/account-recovery";

// POST /api/user/recover_password - mail a password-recovery link
export const POST = route(api.recoverPassword, ({ body, source }) =>
  recoverPassword(getDb(), body.username ?? body.email ?? "", source),
);
