import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { setDefaultPaymentMethod } from "@/lib/services/billing";

// POST /api/billing/paymentmethod/default
export const POST = route(api.setDefaultPaymentMethod, ({ scope, body }) =>
  setDefaultPaymentMethod(getDb(), scope, body.id),
);
