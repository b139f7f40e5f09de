import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { chooseDevices } from "@/lib/services/billing";

// POST /api/billing/device-choice
export const POST = route(api.chooseDevices, ({ scope, body }) => chooseDevices(getDb(), scope, body.choices));
