import * as api from "@/lib/api/agent";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { markDeviceOffline } from "@/lib/services/agent";

// POST /internal/devices/{uid}/offline - a device's own token, or the internal secret
export const POST = route(api.markDeviceOffline, ({ device, params }) =>
  markDeviceOffline(getDb(), params.uid, device),
);
