import { z } from "zod";
import { deviceUid } from "./devices";

/** A processor's id (`cus_…`, `pm_…`): letters, digits and underscores. */
const processorId = z
  .string()
  .min(1, "must not be empty")
  .max(255, "at most 255 characters")
  .regex(/^[A-Za-z0-9_]+$/, "expected a processor id (letters, digits, underscores)");

/** Attach, detach or make default a payment method: its processor id. */
export const paymentMethodBody = z.object({ id: processorId });

/** The devices to keep when the namespace is over the free plan (at most its device limit). */
export const deviceChoiceBody = z.object({
  choices: z.array(deviceUid).max(1000, "at most 1000 items"),
});

/** Where the processor's hosted page sends the browser back to (a path of the console). */
export const setupSessionBody = z.object({
  return_path: z
    .string()
    .regex(/^(\/[A-Za-z0-9_-]+)+$/, "expected a path of the console")
    .max(200)
    .default("/settings/billing"),
});

/** A card as the processor describes it: never its number or CVC (`number` is masked, `cvc` empty). */
export const paymentMethodObject = z.object({
  id: z.string(),
  number: z.string(),
  brand: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  cvc: z.string(),
  default: z.boolean(),
});

export const customerObject = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  payment_methods: z.array(paymentMethodObject),
});

export const invoiceObject = z.object({
  id: z.string(),
  status: z.string(),
  currency: z.string(),
  amount: z.number().int(),
});

export const subscriptionObject = z.object({
  id: z.string(),
  active: z.boolean(),
  status: z.string(),
  /** The end of the current period, in seconds since the epoch. */
  end_at: z.number().int(),
  invoices: z.array(invoiceObject),
});

export const setupSessionObject = z.object({ url: z.string() });

/** `namespace.billing` in the cloud edition with billing on (null otherwise). */
export const namespaceBillingObject = z.object({
  active: z.boolean(),
  status: z.string(),
  customer_id: z.string(),
  subscription_id: z.string(),
  end_at: z.number().int(),
  /** Over the free plan after a subscription ended: the owner has to choose the devices to keep. */
  device_choice_pending: z.boolean(),
});

export const billingErrorBody = z.object({ message: z.string(), code: z.string() });

export type Customer = z.infer<typeof customerObject>;
export type Subscription = z.infer<typeof subscriptionObject>;
