import * as api from "@/lib/api/account";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { resendConfirmation } from "@/lib/services/account-recovery";

// POST /api/user/resend_email - resend the activation e-mail
export const POST = route(api.resendConfirmation, ({ body, source }) =>
  resendConfirmation(getDb(), body.username, source),
);
