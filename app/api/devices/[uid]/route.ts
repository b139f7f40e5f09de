import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteDevice, getDevice, updateDevice } from "@/lib/services/devices";

// GET /api/devices/{uid}
export const GET = route(api.getDevice, ({ scope, params }) => getDevice(getDb(), scope, params.uid));

// PUT /api/devices/{uid} - name and public_url
export const PUT = route(api.updateDevice, ({ scope, params, body }) => updateDevice(getDb(), scope, params.uid, body));

// DELETE /api/devices/{uid}
export const DELETE = route(api.deleteDevice, ({ scope, params }) => deleteDevice(getDb(), scope, params.uid));
