import { createPublicKey } from "node:crypto";
import { z } from "zod";
import { tenantId } from "./common";
import { deviceInfo, deviceUid } from "./devices";

const mac = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;

const pemShape = /^-----BEGIN [A-Z ]*PUBLIC KEY-----[\r\n]+[A-Za-z0-9+/=\r\n]+-----END [A-Z ]*PUBLIC KEY-----\s*$/;

/** Parsing a key is costly: heartbeats check its shape, a new device's key is parsed once. */
export function isPemPublicKey(value: string): boolean {
  try {
    createPublicKey(value);
    return true;
  } catch {
    return false;
  }
}

/** What an agent sends on every call of `POST /api/devices/auth`. */
export const authDeviceBody = z
  .object({
    info: deviceInfo,
    sessions: z.array(deviceUid).max(256).default([]),
    hostname: z
      .string()
      .max(63)
      .regex(/^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)?$/, "letters, digits and inner hyphens"),
    identity: z.object({ mac: z.union([z.literal(""), z.string().regex(mac, "a MAC address")]) }).default({ mac: "" }),
    public_key: z.string().max(16_384).regex(pemShape, "a PEM-encoded public key"),
    tenant_id: tenantId,
  })
  .refine((body) => body.hostname !== "" || body.identity.mac !== "", {
    message: "a hostname or a MAC address is needed",
    path: ["hostname"],
  });
export type AuthDeviceInput = z.output<typeof authDeviceBody>;

export const authDeviceResponse = z.object({
  uid: z.string(),
  token: z.string(),
  name: z.string(),
  namespace: z.string(),
});

export const realIp = z.ipv4({ message: "X-Real-IP must be an IPv4 address" });
