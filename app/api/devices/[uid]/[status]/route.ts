import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { setDeviceStatus } from "@/lib/services/devices";

// PATCH /api/devices/{uid}/{status} - accept, reject, pending or unused
export const PATCH = route(api.updateDeviceStatus, ({ scope, params }) =>
  setDeviceStatus(getDb(), scope, params.uid, params.status),
);
