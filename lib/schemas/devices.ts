import { z } from "zod";
import { deviceStatuses } from "@/models/devices";
import { timestamp } from "./common";

export const deviceUid = z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lower-case hex characters");
export const deviceUidParams = z.object({ uid: deviceUid });

/** Tag names: 3 to 255 characters, none of / @ & : (they delimit tags in addresses and filters). */
export const tagName = z
  .string()
  .min(3, "at least 3 characters")
  .max(255, "at most 255 characters")
  .regex(/^[^/@&:]+$/, "no / @ & or :");

export const deviceInfo = z.object({
  id: z.string().max(255),
  pretty_name: z.string().max(255),
  version: z.string().max(255),
  arch: z.string().max(255),
  platform: z.string().max(255),
});

export const position = z.object({ latitude: z.number(), longitude: z.number() });

/** A device as the API shows it. */
export const deviceObject = z.object({
  uid: z.string(),
  name: z.string(),
  identity: z.object({ mac: z.string() }),
  info: deviceInfo,
  public_key: z.string(),
  tenant_id: z.string(),
  last_seen: timestamp,
  online: z.boolean(),
  namespace: z.string(),
  status: z.enum(deviceStatuses),
  status_update_at: timestamp,
  created_at: timestamp,
  remote_addr: z.string(),
  position: position.nullable(),
  tags: z.array(z.string()),
  public_url: z.boolean(),
  acceptable: z.boolean(),
});
