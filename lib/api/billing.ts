import { z } from "zod";
import { defineOperation } from "../http/operation";
import {
  customerObject,
  deviceChoiceBody,
  paymentMethodBody,
  setupSessionBody,
  setupSessionObject,
  subscriptionObject,
} from "../schemas/billing";
import { deviceObject } from "../schemas/devices";

const tag = "billing";
// Every member reaches the rule, which answers a non-owner 403 {message, code: "not_owner"}
// (docs/billing.md): billing's failures all carry a code.
const member = { kind: "tenant", permission: "namespace.read" } as const;
const cloud = { isCloudOnly: true } as const;

const failures = {
  400: "bad input {message, code}",
  403: "not the namespace's owner {message, code: not_owner}",
  404: "no customer yet {message, code: customer_not_found}",
  424: "billing not configured, or the payment processor failed {message, code}",
};

export const getCustomer = defineOperation({
  id: "getBillingCustomer",
  method: "GET",
  path: "/api/billing/customer",
  tag,
  summary: "The namespace's customer at the payment processor, with its cards (never their numbers)",
  access: member,
  response: customerObject,
  errors: failures,
  ...cloud,
});

export const createCustomer = defineOperation({
  id: "createBillingCustomer",
  method: "POST",
  path: "/api/billing/customer",
  tag,
  summary: "Create the namespace's customer at the payment processor (once; again answers the same)",
  access: member,
  response: customerObject,
  errors: failures,
  ...cloud,
});

export const getSubscription = defineOperation({
  id: "getBillingSubscription",
  method: "GET",
  path: "/api/billing/subscription",
  tag,
  summary: "The namespace's subscription as the payment processor has it now, with its invoices",
  access: member,
  response: subscriptionObject,
  errors: { ...failures, 404: "no customer or no subscription yet {message, code}" },
  ...cloud,
});

export const createSubscription = defineOperation({
  id: "createBillingSubscription",
  method: "POST",
  path: "/api/billing/subscription",
  tag,
  summary: "Subscribe to the paid plan with the default payment method: lifts the free plan's device limit",
  access: member,
  response: subscriptionObject,
  errors: { ...failures, 402: "no default payment method, or the card was declined {message, code}" },
  ...cloud,
});

const paymentMethodOperation = (id: string, action: string, summary: string) =>
  defineOperation({
    id,
    method: "POST",
    path: `/api/billing/paymentmethod/${action}`,
    tag,
    summary,
    access: member,
    body: paymentMethodBody,
    response: customerObject,
    errors: { ...failures, 404: "no customer yet, or no such payment method {message, code}" },
    ...cloud,
  });

export const attachPaymentMethod = paymentMethodOperation(
  "attachPaymentMethod",
  "attach",
  "Attach a payment method the processor made in the browser (the first becomes the default)",
);
export const detachPaymentMethod = paymentMethodOperation("detachPaymentMethod", "detach", "Detach a payment method");
export const setDefaultPaymentMethod = paymentMethodOperation(
  "setDefaultPaymentMethod",
  "default",
  "Make a payment method the default",
);

export const createSetupSession = defineOperation({
  id: "createBillingSetupSession",
  method: "POST",
  path: "/api/billing/setup-session",
  tag,
  summary: "The payment processor's hosted page to add a card; it sends the browser back to return_path",
  access: member,
  body: setupSessionBody,
  response: setupSessionObject,
  errors: failures,
  ...cloud,
});

export const chooseDevices = defineOperation({
  id: "chooseDevices",
  method: "POST",
  path: "/api/billing/device-choice",
  tag,
  summary: "Over the free plan: keep these accepted devices (at most its limit), the others become removed",
  access: member,
  body: deviceChoiceBody,
  response: z.object({ kept: z.array(z.string()), removed: z.array(z.string()) }),
  errors: failures,
  ...cloud,
});

export const listMostUsedDevices = defineOperation({
  id: "listMostUsedDevices",
  method: "GET",
  path: "/api/billing/devices-most-used",
  tag,
  summary: "The accepted devices, the most used first (sessions in the last 30 days)",
  access: member,
  response: z.array(deviceObject),
  errors: failures,
  ...cloud,
});

export const receiveWebhook = defineOperation({
  id: "receiveBillingWebhook",
  method: "POST",
  path: "/api/billing/webhook",
  tag,
  summary: "The payment processor's events, signed (Stripe-Signature); each is processed once",
  access: { kind: "public" },
  response: z.object({ received: z.boolean() }),
  errors: {
    400: "the signature does not verify {message, code: invalid_signature}",
    424: "billing not configured, or the processor failed {message, code}",
  },
  ...cloud,
});

export const billingOperations = [
  getCustomer,
  createCustomer,
  getSubscription,
  createSubscription,
  attachPaymentMethod,
  detachPaymentMethod,
  setDefaultPaymentMethod,
  createSetupSession,
  chooseDevices,
  listMostUsedDevices,
  receiveWebhook,
];
