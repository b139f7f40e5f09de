import { defineOperation } from "../http/operation";
import {
  createWebhookBody,
  listWebhookDeliveriesQuery,
  listWebhooksQuery,
  updateWebhookBody,
  webhookDeliveryObject,
  webhookDeliveryParams,
  webhookObject,
  webhookParams,
  webhookWithSecret,
} from "../schemas/webhooks";

const tag = "webhooks";
const manage = { kind: "tenant", permission: "webhook.manage" } as const;
const noWebhook = { 404: "no such webhook" };

export const createWebhook = defineOperation({
  id: "createWebhook",
  method: "POST",
  path: "/api/webhooks",
  tag,
  summary: "Send the namespace's events of the chosen types to a URL, signed (answers the secret once)",
  access: manage,
  body: createWebhookBody,
  response: webhookWithSecret,
});

export const listWebhooks = defineOperation({
  id: "listWebhooks",
  method: "GET",
  path: "/api/webhooks",
  tag,
  summary: "The namespace's webhooks, oldest first",
  access: manage,
  query: listWebhooksQuery,
  response: webhookObject,
  isList: true,
});

export const getWebhook = defineOperation({
  id: "getWebhook",
  method: "GET",
  path: "/api/webhooks/{id}",
  tag,
  summary: "Get a webhook",
  access: manage,
  params: webhookParams,
  response: webhookObject,
  errors: noWebhook,
});

export const updateWebhook = defineOperation({
  id: "updateWebhook",
  method: "PATCH",
  path: "/api/webhooks/{id}",
  tag,
  summary: "Change a webhook's URL, event types or switch (fields left out keep their value)",
  access: manage,
  params: webhookParams,
  body: updateWebhookBody,
  response: webhookObject,
  errors: noWebhook,
});

export const deleteWebhook = defineOperation({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/api/webhooks/{id}",
  tag,
  summary: "Delete a webhook and its deliveries (pending ones are not sent)",
  access: manage,
  params: webhookParams,
  errors: noWebhook,
});

export const rotateWebhookSecret = defineOperation({
  id: "rotateWebhookSecret",
  method: "POST",
  path: "/api/webhooks/{id}/secret",
  tag,
  summary: "Make a new signing secret (answered once); deliveries are signed with it from now on",
  access: manage,
  params: webhookParams,
  response: webhookWithSecret,
  errors: noWebhook,
});

export const testWebhook = defineOperation({
  id: "testWebhook",
  method: "POST",
  path: "/api/webhooks/{id}/test",
  tag,
  summary: "Queue a webhook.test delivery now, also to a disabled webhook",
  access: manage,
  params: webhookParams,
  response: webhookDeliveryObject,
  errors: noWebhook,
});

export const listWebhookDeliveries = defineOperation({
  id: "listWebhookDeliveries",
  method: "GET",
  path: "/api/webhooks/{id}/deliveries",
  tag,
  summary: "A webhook's deliveries, newest first, with their attempts and the last answer",
  access: manage,
  params: webhookParams,
  query: listWebhookDeliveriesQuery,
  response: webhookDeliveryObject,
  isList: true,
  errors: noWebhook,
});

export const redeliverWebhook = defineOperation({
  id: "redeliverWebhook",
  method: "POST",
  path: "/api/webhooks/{id}/deliveries/{delivery}/redeliver",
  tag,
  summary: "Send a delivery again now (same id and body), with a fresh count of attempts",
  access: manage,
  params: webhookDeliveryParams,
  response: webhookDeliveryObject,
  errors: { 404: "no such webhook or delivery" },
});

export const webhookOperations = [
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
  redeliverWebhook,
];
