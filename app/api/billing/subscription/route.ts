import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createSubscription, getSubscription } from "@/lib/services/billing";

// GET /api/billing/subscription
export const GET = route(api.getSubscription, ({ scope }) => getSubscription(getDb(), scope));

// POST /api/billing/subscription
export const POST = route(api.createSubscription, ({ scope }) => createSubscription(getDb(), scope));
