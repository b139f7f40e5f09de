import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { addDeviceTag, setDeviceTags } from "@/lib/services/devices";

// POST /api/devices/{uid}/tags - add one tag
export const POST = route(api.createDeviceTag, ({ scope, params, body }) =>
  addDeviceTag(getDb(), scope, params.uid, body.tag),
);

// PUT /api/devices/{uid}/tags - replace all tags
export const PUT = route(api.updateDeviceTags, ({ scope, params, body }) =>
  setDeviceTags(getDb(), scope, params.uid, body.tags),
);
