import * as api from "@/lib/api/devices";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { acceptDevice } from "@/lib/services/devices";

// PATCH /api/devices/{uid}/accept - within the namespace's max_devices
export const PATCH = route(api.acceptDevice, ({ scope, params }) => acceptDevice(getDb(), scope, params.uid));
