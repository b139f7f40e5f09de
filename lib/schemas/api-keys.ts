import { z } from "zod";
import { memberRole, nameText, orderBy, pagination, timestamp } from "./common";

export const apiKeyName = nameText()
  .trim()
  .min(3, "at least 3 characters")
  .max(20, "at most 20 characters")
  .regex(/^[^/\s]+$/, "no spaces or slashes");

export const createApiKeyBody = z.object({
  name: apiKeyName,
  expires_at: z.union([z.literal(-1), z.literal(30), z.literal(60), z.literal(90), z.literal(365)], {
    message: "one of -1, 30, 60, 90, 365",
  }),
  role: z.union([memberRole, z.literal("")]).optional(),
  key: z.union([z.uuidv4(), z.literal("")]).optional(),
});

export const updateApiKeyBody = z.object({ name: apiKeyName.optional(), role: memberRole.optional() });

export const apiKeyParams = z.object({ name: nameText().min(1).max(100) });

export const listApiKeysQuery = pagination.extend({
  order_by: orderBy,
  sort_by: z.enum(["expires_in", "name", "role", "created_at", "updated_at"]).default("expires_in"),
});

export const apiKeyObject = z.object({
  id: z.string().optional(),
  tenant_id: z.string(),
  created_by: z.string(),
  role: memberRole,
  name: z.string(),
  expires_in: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});
