import * as api from "../api/agent";
import { getDb } from "../db";
import { forbidden } from "../errors";
import { route } from "../http/route";
import { authenticateDevice, markDeviceOffline } from "../services/agent";

// The agent endpoints are called by every device every 30 s: server.ts hands them these same
// handlers directly, without Next.js's per-request cost; the app/ route files re-export them.

// POST /api/devices/auth and /api/auth/device - register, heartbeat, token
export const authDevice = route(api.authDevice, ({ body, source, request }) =>
  authenticateDevice(getDb(), body, source, request.headers.get("x-real-ip")),
);
export const authDeviceAlias = route(api.authDeviceAlias, ({ body, source, request }) =>
  authenticateDevice(getDb(), body, source, request.headers.get("x-real-ip")),
);

// POST /internal/devices/{uid}/offline - a device's own token, or the internal secret
export const markOffline = route(api.markDeviceOffline, ({ device, params }) => {
  if (device && device.uid !== params.uid) throw forbidden("a device can only mark itself offline");
  return markDeviceOffline(getDb(), params.uid, device?.tenantId);
});
