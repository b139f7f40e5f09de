import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { attachPaymentMethod } from "@/lib/services/billing";

// POST /api/billing/paymentmethod/attach
export const POST = route(api.attachPaymentMethod, ({ scope, body }) => attachPaymentMethod(getDb(), scope, body.id));
