import { z } from "zod";
import { webhookDeliveryStatuses, webhookEventTypes } from "@/models/enums";
import { pagination, timestamp } from "./common";

export const maxWebhookUrlLength = 2048;

/** Where deliveries go: an http or https URL without credentials (the secret signs, nothing else authenticates). */
export const webhookUrl = z
  .string()
  .trim()
  .max(maxWebhookUrlLength, `at most ${maxWebhookUrlLength} characters`)
  .superRefine((value, context) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      context.addIssue({ code: "custom", message: "expected an http or https URL" });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      context.addIssue({ code: "custom", message: "expected an http or https URL" });
    else if (url.username !== "" || url.password !== "")
      context.addIssue({ code: "custom", message: "a user or password in the URL is not allowed" });
  });

export const webhookEvents = z
  .array(z.enum(webhookEventTypes), { message: `expected a list of event types (${webhookEventTypes.join(", ")})` })
  .min(1, "choose at least one event type")
  .transform((types) => [...new Set(types)]);

/** A signing secret as Standard Webhooks writes it: `whsec_` and 24 to 64 random bytes in base64. */
export const webhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "expected whsec_ followed by base64")
  .refine((value) => {
    const bytes = Buffer.from(value.slice("whsec_".length), "base64").length;
    return bytes >= 24 && bytes <= 64;
  }, "expected 24 to 64 bytes after whsec_");

export const createWebhookBody = z.object({
  url: webhookUrl,
  events: webhookEvents,
  enabled: z.boolean().default(true),
  secret: webhookSecret.optional().describe("Leave out to have one made; answered once, here"),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

/** What an update changes; a field left out keeps its value. */
export const updateWebhookBody = z.object({
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

export const webhookParams = z.object({ id: z.uuid({ message: "expected a webhook id (uuid)" }) });
export const webhookDeliveryParams = webhookParams.extend({
  delivery: z.uuid({ message: "expected a delivery id (uuid)" }),
});

export const listWebhooksQuery = pagination;
export const listWebhookDeliveriesQuery = pagination.extend({ status: z.enum(webhookDeliveryStatuses).optional() });

export const webhookObject = z.object({
  id: z.string(),
  tenant_id: z.string(),
  url: z.string(),
  events: z.array(z.enum(webhookEventTypes)),
  enabled: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  last_delivery: z
    .object({ status: z.enum(webhookDeliveryStatuses), at: timestamp, response_status: z.number().int().nullable() })
    .nullable()
    .describe("The newest delivery's outcome, null before the first"),
});
export type WebhookObject = z.infer<typeof webhookObject>;

/** The answer to create and to a new secret: the webhook and its secret, shown this once. */
export const webhookWithSecret = webhookObject.extend({ secret: z.string() });

export const webhookDeliveryObject = z.object({
  id: z.string().describe("Also the `webhook-id` header: the same for every attempt of a delivery"),
  webhook_id: z.string(),
  type: z.string().describe("An event type, or webhook.test"),
  data: z.record(z.string(), z.unknown()),
  status: z.enum(webhookDeliveryStatuses),
  attempts: z.number().int(),
  created_at: timestamp,
  next_attempt_at: timestamp.nullable().describe("When a pending delivery is tried next"),
  last_attempt_at: timestamp.nullable(),
  response_status: z.number().int().nullable().describe("The receiver's status code on the last attempt"),
  response_body: z.string().nullable().describe("The start of the receiver's answer (at most 1,024 characters)"),
  error: z.string().nullable().describe("Why the last attempt had no answer, or why it counted as failed"),
  duration_ms: z.number().int().nullable(),
});
export type WebhookDeliveryObject = z.infer<typeof webhookDeliveryObject>;
