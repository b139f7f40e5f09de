import { defineOperation } from "../http/operation";
import { authDeviceBody, authDeviceResponse } from "../schemas/agent";
import { deviceUidParams } from "../schemas/devices";

const tag = "agent";
const errors = { 404: "no such namespace", 429: "too many new devices from this source" };

export const authDevice = defineOperation({
  id: "authDevice",
  method: "POST",
  path: "/api/devices/auth",
  tag,
  summary: "Agent authentication and heartbeat (every 30 s): registers the device on first call",
  access: { kind: "public" },
  body: authDeviceBody,
  response: authDeviceResponse,
  errors,
});

export const authDeviceAlias = defineOperation({
  ...authDevice,
  id: "authDeviceAlias",
  path: "/api/auth/device",
  summary: "Agent authentication (alias of POST /api/devices/auth)",
});

export const markDeviceOffline = defineOperation({
  id: "markDeviceOffline",
  method: "POST",
  path: "/internal/devices/{uid}/offline",
  tag,
  summary: "Mark a device offline (its own device token, or the internal secret)",
  access: { kind: "device", orInternal: true },
  params: deviceUidParams,
});

export const agentOperations = [authDevice, authDeviceAlias, markDeviceOffline];
