import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { detachPaymentMethod } from "@/lib/services/billing";

// POST /api/billing/paymentmethod/detach
export const POST = route(api.detachPaymentMethod, ({ scope, body }) => detachPaymentMethod(getDb(), scope, body.id));
