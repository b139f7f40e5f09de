import { call } from "@/testing/client";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import type { Entry } from "../support/matrix";

// A receiver that is never dialled within the matrix: deliveries are only queued (the delivery
// worker's first attempt fails on the closed port and retries later).
const newWebhook = () => ({ url: "http://127.0.0.1:9/hook", events: ["device.online"], enabled: false });

/** A disabled webhook of the namespace, made by its owner. */
async function webhookIn(namespace: SeededNamespace) {
  const response = await call("POST", "/api/webhooks", { token: namespace.owner.tenantToken, body: newWebhook() });
  if (response.status !== 200) throw new Error(`webhook create failed: ${response.status} ${response.text}`);
  return response.body.id as string;
}

/** A webhook with one (test) delivery. */
async function deliveryIn(namespace: SeededNamespace) {
  const id = await webhookIn(namespace);
  const test = await call("POST", `/api/webhooks/${id}/test`, { token: namespace.owner.tenantToken });
  if (test.status !== 200) throw new Error(`webhook test failed: ${test.status} ${test.text}`);
  return { id, delivery: test.body.id as string };
}

/** Valid requests for the webhook operations (see e2e/api/role-matrix.test.ts). */
export const requests: Record<string, Entry> = {
  createWebhook: { request: () => ({ body: newWebhook() }) },
  listWebhooks: { request: () => ({ query: "page=1&per_page=5" }) },
  getWebhook: { request: async (namespace) => ({ params: { id: await webhookIn(namespace) } }) },
  updateWebhook: {
    request: async (namespace) => ({ params: { id: await webhookIn(namespace) }, body: { enabled: true } }),
  },
  deleteWebhook: { request: async (namespace) => ({ params: { id: await webhookIn(namespace) } }) },
  rotateWebhookSecret: { request: async (namespace) => ({ params: { id: await webhookIn(namespace) } }) },
  testWebhook: { request: async (namespace) => ({ params: { id: await webhookIn(namespace) } }) },
  listWebhookDeliveries: {
    request: async (namespace) => ({ params: { id: await webhookIn(namespace) }, query: "status=pending" }),
  },
  redeliverWebhook: { request: async (namespace) => ({ params: await deliveryIn(namespace) }) },
};
