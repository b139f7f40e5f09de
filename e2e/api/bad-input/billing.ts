import { seedNamespace } from "@/testing/seeds/namespaces";
import type { Case, Table } from "../support/bad-input";

// The edge refuses bad input before the rule runs, so the run's server (billing off) serves.
const asOwner = async () => {
  const namespace = await seedNamespace();
  // Nothing to write: the processor is never called for a refused body.
  return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
};

const paymentMethodCases: Case[] = [
  ["an empty body", () => ({ body: {} }), ["id"]],
  ["an empty id", () => ({ body: { id: "" } }), ["id"]],
  ["a numeric id", () => ({ body: { id: 7 } }), ["id"]],
  ["an id with a slash", () => ({ body: { id: "pm_1/../x" } }), ["id"]],
  ["a card number instead of an id", () => ({ body: { id: "4242 4242 4242 4242" } }), ["id"]],
  ["a 256-character id", () => ({ body: { id: `pm_${"x".repeat(253)}` } }), ["id"]],
];

const paymentMethodTable = () => ({ setup: asOwner, cases: paymentMethodCases });

export const tables: Record<string, () => Table> = {
  attachPaymentMethod: paymentMethodTable,
  detachPaymentMethod: paymentMethodTable,
  setDefaultPaymentMethod: paymentMethodTable,
  createBillingSetupSession: () => ({
    setup: asOwner,
    cases: [
      ["a full address as return_path", () => ({ body: { return_path: "https://evil.example/x" } }), ["return_path"]],
      ["a protocol-relative return_path", () => ({ body: { return_path: "//evil.example" } }), ["return_path"]],
      ["a return_path with a query", () => ({ body: { return_path: "/settings?x=1" } }), ["return_path"]],
    ],
  }),
  chooseDevices: () => ({
    setup: asOwner,
    cases: [
      ["an empty body", () => ({ body: {} }), ["choices"]],
      ["choices as a string", () => ({ body: { choices: "abc" } }), ["choices"]],
      ["a choice that is not a device uid", () => ({ body: { choices: ["not-a-uid"] } }), ["choices.0"]],
      ["a numeric choice", () => ({ body: { choices: [7] } }), ["choices.0"]],
    ],
  }),
};
