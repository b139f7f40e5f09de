import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { removeDeviceTag } from "@/lib/services/devices";

// DELETE /api/devices/{uid}/tags/{tag}
export const DELETE = route(api.deleteDeviceTag, ({ scope, params }) =>
  removeDeviceTag(getDb(), scope, params.uid, params.tag),
);
