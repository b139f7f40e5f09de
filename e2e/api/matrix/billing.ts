import { randomUid } from "@/testing/client";
import type { Entry } from "../support/matrix";

// Only the owner manages billing: the rule answers the others 403 {message, code: "not_owner"}.
// The run's server has no payment processor (billing off), so the owner gets 424; the roles
// with billing on are in e2e/api/billing.test.ts.
const ownerOnly = {
  refusedRoles: ["administrator", "operator", "observer"],
  allowedStatus: 424,
} satisfies Partial<Entry>;

export const requests: Record<string, Entry> = {
  getBillingCustomer: { ...ownerOnly, request: () => ({}) },
  createBillingCustomer: { ...ownerOnly, request: () => ({}) },
  getBillingSubscription: { ...ownerOnly, request: () => ({}) },
  createBillingSubscription: { ...ownerOnly, request: () => ({}) },
  attachPaymentMethod: { ...ownerOnly, request: () => ({ body: { id: "pm_matrix" } }) },
  detachPaymentMethod: { ...ownerOnly, request: () => ({ body: { id: "pm_matrix" } }) },
  setDefaultPaymentMethod: { ...ownerOnly, request: () => ({ body: { id: "pm_matrix" } }) },
  createBillingSetupSession: { ...ownerOnly, request: () => ({ body: {} }) },
  chooseDevices: { ...ownerOnly, request: () => ({ body: { choices: [randomUid()] } }) },
  listMostUsedDevices: { ...ownerOnly, request: () => ({}) },
};
