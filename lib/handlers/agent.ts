import * as api from "../api/agent";
import { getDb } from "../db";
import { forbidden } from "../errors";
import type { DirectContext } from "../http/direct";
import { route, validate } from "../http/route";
import { authDeviceBody, readAuthDeviceBody } from "../schemas/agent";
import { authenticateDevice, markDeviceOffline } from "../services/agent";

// Every device calls POST /api/devices/auth every 30 s: server.ts serves it with
// authDeviceDirect, straight from Node's request; the app/ route files re-export the route()
// handlers, for what reaches Next.js.

// POST /api/devices/auth and /api/auth/device - register, heartbeat, token
export const authDevice = route(api.authDevice, ({ body, source, request }) =>
  authenticateDevice(getDb(), body, source, request.headers.get("x-real-ip")),
);
export const authDeviceAlias = route(api.authDeviceAlias, ({ body, source, request }) =>
  authenticateDevice(getDb(), body, source, request.headers.get("x-real-ip")),
);

// POST /api/devices/auth and /api/auth/device as server.ts serves them (lib/http/direct.ts): the
// hand-written check of the body, and zod only for a body it refuses, to name the fields.
export const authDeviceDirect = ({ body, source, headers }: DirectContext) =>
  authenticateDevice(
    getDb(),
    readAuthDeviceBody(body) ?? validate(authDeviceBody, body, "body"),
    source,
    (headers["x-real-ip"] as string | undefined) ?? null,
  );

// POST /internal/devices/{uid}/offline - a device's own token, or the internal secret
export const markOffline = route(api.markDeviceOffline, ({ device, params }) => {
  if (device && device.uid !== params.uid) throw forbidden("a device can only mark itself offline");
  return markDeviceOffline(getDb(), params.uid, device?.tenantId);
});
