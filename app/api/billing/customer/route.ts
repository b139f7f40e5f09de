import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createCustomer, getCustomer } from "@/lib/services/billing";

// GET /api/billing/customer
export const GET = route(api.getCustomer, ({ scope }) => getCustomer(getDb(), scope));

// POST /api/billing/customer
export const POST = route(api.createCustomer, ({ scope }) => createCustomer(getDb(), scope));
