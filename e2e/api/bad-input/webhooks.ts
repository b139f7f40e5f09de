import { expect } from "vitest";
import { call } from "@/testing/client";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { type Case, createTable, readTable, type Table } from "../support/bad-input";

// Never an address off this machine: a service without the checks could dial it.
const valid = () => ({ url: "http://127.0.0.1:9/hook", events: ["device.online"] });

async function webhooksOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/webhooks?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list webhooks: ${response.status} ${response.text}`);
  return response.body;
}

const bodyCases: Case[] = [
  ["a URL that is no URL", () => ({ body: { ...valid(), url: "hook" } }), ["url"]],
  ["a URL of another scheme", () => ({ body: { ...valid(), url: "ftp://127.0.0.1/hook" } }), ["url"]],
  ["a URL with a password", () => ({ body: { ...valid(), url: "http://user:pass@127.0.0.1/hook" } }), ["url"]],
  ["a URL of 2,049 characters", () => ({ body: { ...valid(), url: `http://127.0.0.1/${"a".repeat(2032)}` } }), ["url"]],
  ["no event type", () => ({ body: { ...valid(), events: [] } }), ["events"]],
  ["an unknown event type", () => ({ body: { ...valid(), events: ["device.exploded"] } }), ["events.0"]],
  ["events as a string", () => ({ body: { ...valid(), events: "audit" } }), ["events"]],
  ["enabled as a string", () => ({ body: { ...valid(), enabled: "yes" } }), ["enabled"]],
];

/** A namespace with one disabled webhook; a refused request leaves its webhooks as they were. */
async function withWebhook() {
  const namespace = await seedNamespace();
  const created = await call("POST", "/api/webhooks", {
    token: namespace.owner.tenantToken,
    body: { ...valid(), enabled: false },
  });
  expect(created.status, created.text).toBe(200);
  const before = await webhooksOf(namespace);
  return {
    credentials: { token: namespace.owner.tenantToken },
    params: { id: created.body.id as string },
    values: {},
    verify: async () => expect(await webhooksOf(namespace)).toEqual(before),
  };
}

export const tables: Record<string, () => Table> = {
  createWebhook: createTable(webhooksOf, [
    ["an empty body", () => ({ body: {} }), ["url", "events"]],
    ...bodyCases,
    ["a secret without its prefix", () => ({ body: { ...valid(), secret: "c2VjcmV0" } }), ["secret"]],
    ["a secret of 8 bytes", () => ({ body: { ...valid(), secret: "whsec_c2VjcmV0c2U=" } }), ["secret"]],
  ]),
  updateWebhook: () => ({ setup: withWebhook, cases: bodyCases }),
  listWebhooks: readTable([["per_page past 100", () => ({ query: "per_page=101" }), ["per_page"]]]),
  listWebhookDeliveries: () => ({
    setup: withWebhook,
    cases: [
      ["an unknown status", () => ({ query: "status=lost" }), ["status"]],
      ["page 0", () => ({ query: "page=0" }), ["page"]],
    ],
  }),
};
