import { z } from "zod";
import { deviceStatuses } from "@/models/enums";
import { hexUidShape } from "../protocol";
import { nameText, orderBy, pagination, timestamp } from "./common";
import { filterQuery } from "./list-filter";

export const deviceUid = z.string().regex(hexUidShape, "expected 64 lower-case hex characters");
export const deviceUidParams = z.object({ uid: deviceUid });

/** Tag names: 3 to 255 characters, none of / @ & : (they delimit tags in addresses and filters). */
export const tagName = nameText()
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

/** Device names take part in SSH addresses (`user@namespace.device@host`): a lower-case hostname label. */
export const deviceName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "1 to 63 lower-case letters, digits or inner hyphens");

export const deviceSortFields = [
  "last_seen",
  "created_at",
  "status_update_at",
  "name",
  "uid",
  "status",
  "online",
] as const;
export type DeviceSortField = (typeof deviceSortFields)[number];

export const listDevicesQuery = pagination.extend({
  filter: filterQuery,
  status: z.enum(deviceStatuses).optional(),
  sort_by: z.enum(deviceSortFields).default("last_seen"),
  order_by: orderBy,
});

export const updateDeviceBody = z.object({ name: deviceName.optional(), public_url: z.boolean().optional() });

/** The words of `PATCH /api/devices/{uid}/{status}`. */
export const statusWords = ["accept", "reject", "pending", "unused"] as const;
export type StatusWord = (typeof statusWords)[number];
export const deviceStatusParams = z.object({ uid: deviceUid, status: z.enum(statusWords) });

export const deviceTagBody = z.object({ tag: tagName });
export const deviceTagsBody = z.object({
  // Repeated names count once, as a set.
  tags: z
    .array(tagName)
    .min(1, "at least 1 tag")
    .max(3, "at most 3 tags")
    .transform((tags) => [...new Set(tags)]),
});
export const deviceTagParams = z.object({ uid: deviceUid, tag: tagName });
