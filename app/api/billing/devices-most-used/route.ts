import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listMostUsedDevices } from "@/lib/services/billing";

// GET /api/billing/devices-most-used
export const GET = route(api.listMostUsedDevices, ({ scope }) => listMostUsedDevices(getDb(), scope));
