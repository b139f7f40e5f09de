import * as api from "@/lib/api/account";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { validateAccount } from "@/lib/services/account-recovery";

// GET /api/user/validation_account?email=&token= - activate an account
export const GET = route(api.validateAccount, ({ query }) => validateAccount(getDb(), query.email, query.token));
