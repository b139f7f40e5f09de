import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { billingAccounts } from "@/models/billing";
import { devices } from "@/models/devices";
import { sessions } from "@/models/sessions";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import { signedEvent, startStripeServer } from "@/testing/stripe-server";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { CodedError } from "../errors";
import {
  attachPaymentMethod,
  chooseDevices,
  createCustomer,
  createSubscription,
  getCustomer,
  receiveWebhook,
  unscopedReconcileBilling,
} from "./billing";
import { acceptDevice } from "./devices";
import { deviceLimit, planRefusal } from "./plan-limit";

// The payment processor cannot be reached from the test machines: the official `stripe` client
// talks to the test suite's own Stripe-compatible server (testing/stripe-server.ts) instead.
// Everything else is real: the rules, the database.

const processor = await startStripeServer();
// Before anything reads the configuration (once per process).
Object.assign(process.env, processor.env, { EDITION: "cloud", FREE_PLAN_DEVICES: "3" });
afterAll(() => processor.stop());

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const statusesOf = async (uids: string[]) => {
  const rows = await db.select({ uid: devices.uid, status: devices.status }).from(devices);
  return uids.map((uid) => rows.find((row) => row.uid === uid)?.status);
};

async function codeOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(CodedError);
  const coded = error as CodedError;
  return `${coded.status} ${coded.code}`;
}

/** A namespace that has a customer with a card and an active subscription. */
async function subscribedScope() {
  const scope = await seedScope(db);
  await createCustomer(db, scope);
  await attachPaymentMethod(db, scope, processor.newCard());
  const subscription = await createSubscription(db, scope);
  return { scope, subscription };
}

async function deliver(event: unknown, secret?: string) {
  const { payload, signature } = signedEvent(event, secret);
  return receiveWebhook(db, payload, signature);
}

describe("the free plan's device limit", () => {
  it("is FREE_PLAN_DEVICES without a subscription, max_devices with one", async () => {
    const free = await seedScope(db);
    expect(await deviceLimit(db, free.tenantId, -1)).toEqual({ limit: 3, isFreePlan: true });
    expect(await deviceLimit(db, free.tenantId, 2)).toEqual({ limit: 2, isFreePlan: false });
    const { scope } = await subscribedScope();
    expect(await deviceLimit(db, scope.tenantId, -1)).toEqual({ limit: -1, isFreePlan: false });
  });

  it("holds under concurrent accepts: three of eight pass, the others answer 402 device_limit_reached", async () => {
    const scope = await seedScope(db);
    const uids = await insertDevices(
      db,
      scope,
      Array.from({ length: 8 }, () => ({})),
    );
    const results = await Promise.allSettled(uids.map((uid) => acceptDevice(db, scope, uid)));
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(3);
    for (const result of results) {
      if (result.status === "rejected") expect((result.reason as CodedError).code).toBe("device_limit_reached");
    }
    expect((await statusesOf(uids)).filter((status) => status === "accepted")).toHaveLength(3);
  });
});

describe("customers and payment methods", () => {
  it("creates one customer however often asked, and shows cards without their numbers", async () => {
    const scope = await seedScope(db);
    const [first, second] = await Promise.all([createCustomer(db, scope), createCustomer(db, scope)]);
    expect(second.id).toBe(first.id);
    const card = processor.newCard("mastercard", "4444");
    const customer = await attachPaymentMethod(db, scope, card);
    expect(customer.payment_methods).toEqual([
      {
        id: card,
        number: "**** **** **** 4444",
        brand: "mastercard",
        exp_month: 12,
        exp_year: expect.any(Number),
        cvc: "",
        default: true,
      },
    ]);
    expect(await getCustomer(db, scope)).toEqual(customer);
  });

  it("answers 404 customer_not_found before the customer exists, 403 not_owner to others", async () => {
    const scope = await seedScope(db);
    expect(await codeOf(getCustomer(db, scope))).toBe("404 customer_not_found");
    const administrator = { ...scope, role: "administrator" } as Scope;
    expect(await codeOf(createCustomer(db, administrator))).toBe("403 not_owner");
  });

  it("asks for a card before subscribing (402 payment_method_required)", async () => {
    const scope = await seedScope(db);
    await createCustomer(db, scope);
    expect(await codeOf(createSubscription(db, scope))).toBe("402 payment_method_required");
  });
});

describe("subscription changes", () => {
  it("cancel: over the free plan the owner must choose; the choice removes the others; a new subscription brings them back", async () => {
    const { scope, subscription } = await subscribedScope();
    const uids = await insertDevices(
      db,
      scope,
      Array.from({ length: 5 }, () => ({ status: "accepted" as const })),
    );
    await deliver(processor.setSubscriptionStatus(subscription.id, "canceled"));
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.tenantId, scope.tenantId));
    expect(account).toMatchObject({ subscriptionStatus: "canceled", isChoicePending: true });

    expect(await codeOf(chooseDevices(db, scope, uids.slice(0, 4)))).toBe("400 too_many_devices");
    expect(await codeOf(chooseDevices(db, scope, [randomUUID()]))).toBe("400 unknown_device");
    const kept = uids.slice(0, 3);
    expect(await chooseDevices(db, scope, kept)).toEqual({ kept, removed: expect.arrayContaining(uids.slice(3)) });
    expect(await statusesOf(uids)).toEqual(["accepted", "accepted", "accepted", "removed", "removed"]);

    await createSubscription(db, scope);
    expect(await statusesOf(uids)).toEqual(uids.map(() => "accepted"));
  });

  it("a replayed or late event changes nothing: the processor's current state stands", async () => {
    const { scope, subscription } = await subscribedScope();
    const canceled = processor.setSubscriptionStatus(subscription.id, "canceled");
    await deliver(canceled);
    await createSubscription(db, scope);
    await deliver(canceled);
    // An event never delivered before, but older than the new subscription.
    const late = { ...canceled, id: `evt_late_${randomUUID().slice(0, 8)}` };
    await deliver(late);
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.tenantId, scope.tenantId));
    expect(account?.subscriptionStatus).toBe("active");
  });

  it("refuses a forged event (400 invalid_signature) and changes nothing", async () => {
    const { scope, subscription } = await subscribedScope();
    const event = processor.setSubscriptionStatus(subscription.id, "canceled");
    expect(await codeOf(deliver(event, "whsec_someone_else"))).toBe("400 invalid_signature");
    const { payload } = signedEvent(event);
    const { signature } = signedEvent({ ...event, id: "evt_other" });
    expect(await codeOf(receiveWebhook(db, payload, signature))).toBe("400 invalid_signature");
    expect(await codeOf(receiveWebhook(db, payload, null))).toBe("400 invalid_signature");
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.tenantId, scope.tenantId));
    expect(account?.subscriptionStatus).toBe("active");
  });

  it("the reconcile catches up with a change whose webhook never came", async () => {
    const { scope, subscription } = await subscribedScope();
    processor.setSubscriptionStatus(subscription.id, "unpaid");
    await unscopedReconcileBilling(db);
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.tenantId, scope.tenantId));
    expect(account?.subscriptionStatus).toBe("unpaid");
  });

  it("until the choice, sessions go only to the most used devices within the free plan", async () => {
    const { scope, subscription } = await subscribedScope();
    const uids = await insertDevices(
      db,
      scope,
      Array.from({ length: 4 }, () => ({ status: "accepted" as const })),
    );
    // The last three are used, the first never.
    const used = uids.slice(1);
    await db.insert(sessions).values(
      used.flatMap((uid, index) =>
        Array.from({ length: index + 1 }, () => ({
          uid: randomUUID(),
          tenantId: scope.tenantId,
          deviceUid: uid,
          username: "root",
          ipAddress: "192.0.2.1",
          authenticated: true,
        })),
      ),
    );
    expect(await planRefusal(db, scope.tenantId, uids[0] ?? "")).toBeUndefined();
    await deliver(processor.setSubscriptionStatus(subscription.id, "canceled"));
    expect(await planRefusal(db, scope.tenantId, uids[0] ?? "")).toMatch(/choose the devices to keep/);
    for (const uid of used) expect(await planRefusal(db, scope.tenantId, uid)).toBeUndefined();
  });
});
