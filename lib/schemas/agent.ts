import { z } from "zod";
import { type DeviceProof, hexUidShape } from "../protocol";
import { publicKeyObject } from "../public-key";
import { tenantId } from "./common";
import { deviceInfo, deviceUid } from "./devices";

const macShape = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;
const hostnameShape = /^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)?$/;

const base64Shape = /^[A-Za-z0-9+/]+={0,2}$/;
const maxProofTimestamp = 2 ** 32;

const pemShape = /^-----BEGIN [A-Z ]*PUBLIC KEY-----[\r\n]+[A-Za-z0-9+/=\r\n]+-----END [A-Z ]*PUBLIC KEY-----\s*$/;

/** Parsing a key is costly: heartbeats check its shape, a new device's key is parsed once. */
export function isPemPublicKey(value: string): boolean {
  try {
    publicKeyObject(value);
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
    hostname: z.string().max(63).regex(hostnameShape, "letters, digits and inner hyphens"),
    identity: z
      .object({ mac: z.union([z.literal(""), z.string().regex(macShape, "a MAC address")]) })
      .default({ mac: "" }),
    public_key: z.string().max(16_384).regex(pemShape, "a PEM-encoded public key"),
    tenant_id: tenantId,
    proof: z
      .object({
        timestamp: z.number().int().min(0).max(maxProofTimestamp),
        signature: z.string().max(1024).regex(base64Shape, "base64"),
      })
      .optional()
      .describe("the device key's signature over deviceProofText (docs/device-identity.md)"),
  })
  .refine((body) => body.hostname !== "" || body.identity.mac !== "", {
    message: "a hostname or a MAC address is needed",
    path: ["hostname"],
  });
export type AuthDeviceInput = z.output<typeof authDeviceBody>;

const uuidShape = z.regexes.uuid();
const infoFields = Object.keys(deviceInfo.shape) as (keyof AuthDeviceInput["info"])[];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown, max: number): value is string => typeof value === "string" && value.length <= max;

/**
 * The same rules as `authDeviceBody`, hand-written for the heartbeat path, where zod's cost per
 * call shows (lib/schemas/agent.test.ts feeds both the same bodies). Answers the parsed body, or
 * undefined when it breaks a rule: the caller then asks zod, whose issues name the fields.
 */
export function readAuthDeviceBody(body: unknown): AuthDeviceInput | undefined {
  if (!isObject(body)) return undefined;
  const { info, sessions = [], hostname, identity = { mac: "" }, public_key, tenant_id, proof } = body;
  if (!isObject(info)) return undefined;
  const parsedInfo = {} as AuthDeviceInput["info"];
  for (const field of infoFields) {
    const value = info[field];
    if (!isString(value, 255)) return undefined;
    parsedInfo[field] = value;
  }
  if (!Array.isArray(sessions) || sessions.length > 256) return undefined;
  for (const session of sessions) if (typeof session !== "string" || !hexUidShape.test(session)) return undefined;
  if (!isString(hostname, 63) || !hostnameShape.test(hostname)) return undefined;
  if (!isObject(identity)) return undefined;
  const { mac } = identity;
  if (typeof mac !== "string" || (mac !== "" && !macShape.test(mac))) return undefined;
  if (!isString(public_key, 16_384) || !pemShape.test(public_key)) return undefined;
  if (typeof tenant_id !== "string" || !uuidShape.test(tenant_id)) return undefined;
  if (hostname === "" && mac === "") return undefined;
  if (proof !== undefined && !isProof(proof)) return undefined;
  return {
    info: parsedInfo,
    sessions: [...(sessions as string[])],
    hostname,
    identity: { mac },
    public_key,
    tenant_id,
    ...(proof === undefined ? {} : { proof: { timestamp: proof.timestamp, signature: proof.signature } }),
  };
}

function isProof(value: unknown): value is DeviceProof {
  if (!isObject(value)) return false;
  const { timestamp, signature } = value;
  if (typeof timestamp !== "number" || !Number.isInteger(timestamp) || timestamp < 0 || timestamp > maxProofTimestamp)
    return false;
  return isString(signature, 1024) && base64Shape.test(signature);
}

export const authDeviceResponse = z.object({
  uid: z.string(),
  token: z.string(),
  name: z.string(),
  namespace: z.string(),
});
