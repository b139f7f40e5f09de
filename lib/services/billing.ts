import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import Stripe from "stripe";
import { billingAccounts, billingEvents } from "@/models/billing";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { users } from "@/models/users";
import { recordAudit, systemActor } from "../audit/trail";
import type { Scope } from "../auth/credentials";
import { can } from "../auth/roles";
import { type Config, getConfig, isBillingOn, publicUrl } from "../config";
import type { Executor } from "../db";
import { CodedError, errorText } from "../errors";
import { log } from "../log";
import { processSingleton } from "../process-state";
import type { Customer, Subscription } from "../schemas/billing";
import { auditChange, audited } from "./audit";
import { describeDevice, namespaceState } from "./device-view";
import { deviceRevoked } from "./devices";
import { publishEvents } from "./events";
import { deviceLimit, isPaying, mostUsedDevices } from "./plan-limit";

// The rules of docs/billing.md. The processor (Stripe) is the source of truth for customers,
// payment methods, subscriptions and invoices; the database keeps its latest word on the
// subscription (billing_accounts), which the device limit reads.

const notConfigured = (what = "STRIPE_SECRET_KEY") =>
  new CodedError(424, "billing_not_configured", `billing is not configured on this server (no ${what})`);

/** The official client, pointed at the processor or, with STRIPE_API_HOST, a Stripe-compatible server. */
function processor(): Stripe {
  const config = getConfig();
  if (!isBillingOn(config) || !config.STRIPE_SECRET_KEY) throw notConfigured();
  const key = config.STRIPE_SECRET_KEY;
  return processSingleton("payment processor", () => new Stripe(key, clientOptions(config)));
}

function clientOptions(config: Config): Stripe.StripeConfig {
  const local = config.STRIPE_API_HOST
    ? { host: config.STRIPE_API_HOST, port: config.STRIPE_API_PORT, protocol: config.STRIPE_API_PROTOCOL }
    : {};
  return { ...local, maxNetworkRetries: 1, timeout: 15_000, telemetry: false };
}

/** A call to the processor: its refusals and its absence are 424s (a declined card is a 402). */
async function atProcessor<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    if (error.type === "StripeCardError") {
      throw new CodedError(402, "payment_failed", `the payment processor declined the card: ${error.message}`);
    }
    log.warn("payment processor call failed", { what, error: errorText(error) });
    throw new CodedError(424, "processor_failed", `the payment processor could not ${what}: ${error.message}`);
  }
}

function assertOwner(scope: Scope) {
  if (!can(scope.role, "billing.manage")) {
    throw new CodedError(403, "not_owner", "only the namespace's owner manages its billing");
  }
}

/** The caller may manage billing and billing is on; answers the processor's client. */
function billingFor(scope: Scope) {
  assertOwner(scope);
  return processor();
}

async function accountOf(db: Executor, tenantId: string) {
  const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.tenantId, tenantId));
  return account;
}

async function requireAccount(db: Executor, scope: Scope) {
  const account = await accountOf(db, scope.tenantId);
  if (!account) {
    throw new CodedError(404, "customer_not_found", "the namespace has no billing customer yet: create one first");
  }
  return account;
}

const maskedNumber = (last4: string) => `**** **** **** ${last4}`;

async function describeCustomer(stripe: Stripe, customerId: string): Promise<Customer> {
  const customer = await atProcessor("read the customer", () => stripe.customers.retrieve(customerId));
  if (customer.deleted) throw new CodedError(424, "processor_failed", "the payment processor deleted the customer");
  const methods = await atProcessor("list the payment methods", () =>
    stripe.customers.listPaymentMethods(customerId, { type: "card", limit: 100 }),
  );
  const defaultMethod = customer.invoice_settings?.default_payment_method;
  const defaultId = typeof defaultMethod === "string" ? defaultMethod : defaultMethod?.id;
  return {
    id: customer.id,
    name: customer.name ?? "",
    email: customer.email ?? "",
    payment_methods: methods.data.map((method) => ({
      id: method.id,
      number: maskedNumber(method.card?.last4 ?? "????"),
      brand: method.card?.brand ?? "unknown",
      exp_month: method.card?.exp_month ?? 0,
      exp_year: method.card?.exp_year ?? 0,
      cvc: "",
      default: method.id === defaultId,
    })),
  };
}

export async function getCustomer(db: Executor, scope: Scope) {
  const stripe = billingFor(scope);
  const account = await requireAccount(db, scope);
  return describeCustomer(stripe, account.customerId);
}

/** Creates the namespace's customer once: a second call (or a concurrent one) answers the same customer. */
export async function createCustomer(db: Executor, scope: Scope) {
  const stripe = billingFor(scope);
  const existing = await accountOf(db, scope.tenantId);
  if (existing) return describeCustomer(stripe, existing.customerId);
  const [owner] = await db
    .select({ name: users.name, email: users.email, namespace: namespaces.name })
    .from(namespaces)
    .innerJoin(users, eq(users.id, namespaces.owner))
    .where(eq(namespaces.tenantId, scope.tenantId));
  if (!owner) throw new CodedError(404, "namespace_not_found", "namespace not found");
  const customer = await atProcessor("create the customer", () =>
    stripe.customers.create(
      { name: owner.name, email: owner.email, metadata: { tenant_id: scope.tenantId, namespace: owner.namespace } },
      // The same key makes concurrent creates one customer at the processor.
      { idempotencyKey: `customer-${scope.tenantId}` },
    ),
  );
  await audited(
    db,
    scope,
    "billing.customer_create",
    (tx) =>
      tx
        .insert(billingAccounts)
        .values({ tenantId: scope.tenantId, customerId: customer.id })
        .onConflictDoNothing({ target: billingAccounts.tenantId }),
    () => ({ target: { type: "customer", id: customer.id }, details: {} }),
  );
  return describeCustomer(stripe, (await requireAccount(db, scope)).customerId);
}

/** The payment method, when it belongs to the customer; else a 404. */
async function ownMethod(stripe: Stripe, customerId: string, id: string) {
  const method = await atProcessor("read the payment method", async () => {
    try {
      return await stripe.paymentMethods.retrieve(id);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeError && error.statusCode === 404) return undefined;
      throw error;
    }
  });
  const owner = typeof method?.customer === "string" ? method.customer : method?.customer?.id;
  if (!method || owner !== customerId) {
    throw new CodedError(404, "payment_method_not_found", "no such payment method for this customer");
  }
  return method;
}

/**
 * Attaches a payment method the browser created with the processor (its id only: card numbers
 * never reach this server). The first one becomes the default.
 */
export async function attachPaymentMethod(db: Executor, scope: Scope, id: string) {
  const stripe = billingFor(scope);
  const { customerId } = await requireAccount(db, scope);
  await atProcessor("attach the payment method", () => stripe.paymentMethods.attach(id, { customer: customerId }));
  await auditChange(db, scope, "billing.payment_method_attach", { type: "payment_method", id });
  const customer = await describeCustomer(stripe, customerId);
  if (!customer.payment_methods.some((method) => method.default)) return setDefault(stripe, customerId, id);
  return customer;
}

export async function detachPaymentMethod(db: Executor, scope: Scope, id: string) {
  const stripe = billingFor(scope);
  const { customerId } = await requireAccount(db, scope);
  await ownMethod(stripe, customerId, id);
  await atProcessor("detach the payment method", () => stripe.paymentMethods.detach(id));
  await auditChange(db, scope, "billing.payment_method_detach", { type: "payment_method", id });
  return describeCustomer(stripe, customerId);
}

export async function setDefaultPaymentMethod(db: Executor, scope: Scope, id: string) {
  const stripe = billingFor(scope);
  const { customerId } = await requireAccount(db, scope);
  await ownMethod(stripe, customerId, id);
  const customer = await setDefault(stripe, customerId, id);
  await auditChange(db, scope, "billing.payment_method_default", { type: "payment_method", id });
  return customer;
}

async function setDefault(stripe: Stripe, customerId: string, id: string) {
  await atProcessor("set the default payment method", () =>
    stripe.customers.update(customerId, { invoice_settings: { default_payment_method: id } }),
  );
  return describeCustomer(stripe, customerId);
}

/**
 * The processor's hosted page where the owner enters a card (Checkout in setup mode): the card
 * goes to the processor, which attaches it to the customer and sends the browser back.
 */
export async function createSetupSession(db: Executor, scope: Scope, returnPath: string) {
  const stripe = billingFor(scope);
  const { customerId } = await requireAccount(db, scope);
  const back = `${publicUrl(getConfig())}${returnPath}`;
  const session = await atProcessor("open the card page", () =>
    stripe.checkout.sessions.create({
      mode: "setup",
      customer: customerId,
      currency: "usd",
      success_url: `${back}?setup=done`,
      cancel_url: back,
    }),
  );
  if (!session.url) throw new CodedError(424, "processor_failed", "the payment processor gave no page address");
  return { url: session.url };
}

const periodEndOf = (subscription: Stripe.Subscription) => {
  const ends = subscription.items.data.map((item) => item.current_period_end).filter((end) => end > 0);
  return ends.length > 0 ? Math.max(...ends) : 0;
};

async function describeSubscription(stripe: Stripe, subscription: Stripe.Subscription): Promise<Subscription> {
  const invoices = await atProcessor("list the invoices", () =>
    stripe.invoices.list({ subscription: subscription.id, limit: 24 }),
  );
  return {
    id: subscription.id,
    active: isPaying(subscription.status),
    status: subscription.status,
    end_at: periodEndOf(subscription),
    invoices: invoices.data.map((invoice) => ({
      id: invoice.id ?? "",
      status: invoice.status ?? "draft",
      currency: invoice.currency,
      amount: invoice.amount_due,
    })),
  };
}

/** The customer's subscription that counts: a paying one, else the latest. Null: none ever. */
async function currentSubscription(stripe: Stripe, customerId: string) {
  const list = await atProcessor("list the subscriptions", () =>
    stripe.subscriptions.list({ customer: customerId, status: "all", limit: 20 }),
  );
  const paying = list.data.find((subscription) => isPaying(subscription.status));
  if (paying) return paying;
  return [...list.data].sort((a, b) => b.created - a.created)[0] ?? null;
}

/**
 * Records what the processor says of the namespace's subscription, under the namespace's lock
 * (the one accepts take). Paying: the devices the plan removed come back. Not paying with more
 * accepted devices than the free plan: the owner has to choose which to keep.
 */
async function applySubscription(db: Executor, tenantId: string, subscription: Stripe.Subscription | null) {
  const restored = await db.transaction(async (tx) => {
    const [namespace] = await tx
      .select({ maxDevices: namespaces.maxDevices })
      .from(namespaces)
      .where(eq(namespaces.tenantId, tenantId))
      .for("no key update");
    if (!namespace) return [];
    const status = subscription?.status ?? null;
    const end = subscription ? periodEndOf(subscription) : 0;
    const [before] = await tx
      .select({ status: billingAccounts.subscriptionStatus })
      .from(billingAccounts)
      .where(eq(billingAccounts.tenantId, tenantId));
    if (before && before.status !== status) {
      await recordAudit(tx, {
        tenantId,
        actor: systemActor,
        source: "",
        action: "billing.subscription_status",
        target: { type: "subscription", id: subscription?.id ?? "" },
        details: { from: before.status, to: status },
      });
    }
    await tx
      .update(billingAccounts)
      .set({
        subscriptionId: subscription?.id ?? null,
        subscriptionStatus: status,
        currentPeriodEnd: end > 0 ? new Date(end * 1000) : null,
      })
      .where(eq(billingAccounts.tenantId, tenantId));
    if (isPaying(status)) {
      await tx.update(billingAccounts).set({ isChoicePending: false }).where(eq(billingAccounts.tenantId, tenantId));
      return tx
        .update(devices)
        .set({ status: "accepted", statusUpdateAt: sql`now()` })
        .where(and(eq(devices.tenantId, tenantId), eq(devices.status, "removed")))
        .returning();
    }
    const { limit } = await deviceLimit(tx, tenantId, namespace.maxDevices);
    const accepted = await tx
      .select({ uid: devices.uid })
      .from(devices)
      .where(and(eq(devices.tenantId, tenantId), eq(devices.status, "accepted")));
    await tx
      .update(billingAccounts)
      .set({ isChoicePending: limit >= 0 && accepted.length > limit })
      .where(eq(billingAccounts.tenantId, tenantId));
    return [];
  });
  await announceStatuses(db, restored);
}

/** Tells the namespaces' live streams the devices' new statuses. */
const announceStatuses = (db: Executor, rows: (typeof devices.$inferSelect)[]) =>
  publishEvents(
    db,
    rows.map((row) => ({
      tenantId: row.tenantId,
      type: "device.status" as const,
      uid: row.uid,
      patch: { status: row.status, status_update_at: row.statusUpdateAt },
    })),
  );

export async function getSubscription(db: Executor, scope: Scope) {
  const stripe = billingFor(scope);
  const account = await requireAccount(db, scope);
  const subscription = await currentSubscription(stripe, account.customerId);
  if (!subscription) throw new CodedError(404, "subscription_not_found", "the namespace has no subscription yet");
  await applySubscription(db, scope.tenantId, subscription);
  return describeSubscription(stripe, subscription);
}

/** Subscribes the customer to the configured price, paid with its default payment method (else its first). */
export async function createSubscription(db: Executor, scope: Scope) {
  const stripe = billingFor(scope);
  const price = getConfig().STRIPE_PRICE_ID;
  if (!price) throw notConfigured("STRIPE_PRICE_ID");
  const account = await requireAccount(db, scope);
  const current = await currentSubscription(stripe, account.customerId);
  if (current && isPaying(current.status)) {
    throw new CodedError(400, "subscription_exists", "the namespace already has an active subscription");
  }
  const customer = await describeCustomer(stripe, account.customerId);
  const [first] = customer.payment_methods;
  if (!first) throw new CodedError(402, "payment_method_required", "add a payment method before subscribing");
  // A card saved on the hosted page is the customer's, not yet its default.
  if (!customer.payment_methods.some((method) => method.default))
    await setDefault(stripe, account.customerId, first.id);
  const subscription = await atProcessor("create the subscription", () =>
    stripe.subscriptions.create({
      customer: account.customerId,
      items: [{ price }],
      payment_behavior: "error_if_incomplete",
    }),
  );
  await auditChange(
    db,
    scope,
    "billing.subscribe",
    { type: "subscription", id: subscription.id },
    { status: subscription.status, price },
  );
  await applySubscription(db, scope.tenantId, subscription);
  return describeSubscription(stripe, subscription);
}

/**
 * A webhook from the processor: verified with the library against STRIPE_WEBHOOK_SECRET, each
 * event processed once. The event only says that something changed: the subscription is read
 * again from the processor, so a replayed or late event cannot set an older state.
 */
export async function receiveWebhook(db: Executor, payload: string, signature: string | null) {
  const stripe = processor();
  const secret = getConfig().STRIPE_WEBHOOK_SECRET;
  if (!secret) throw notConfigured("STRIPE_WEBHOOK_SECRET");
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(payload, signature ?? "", secret);
  } catch {
    throw new CodedError(400, "invalid_signature", "the webhook's signature does not verify");
  }
  const [seen] = await db.select({ id: billingEvents.id }).from(billingEvents).where(eq(billingEvents.id, event.id));
  if (seen) return { received: true };
  const customerId = customerOf(event);
  const account = customerId
    ? (await db.select().from(billingAccounts).where(eq(billingAccounts.customerId, customerId)))[0]
    : undefined;
  const subscription = account ? await currentSubscription(stripe, account.customerId) : undefined;
  const isFirst = await db
    .insert(billingEvents)
    .values({ id: event.id, type: event.type })
    .onConflictDoNothing()
    .returning({ id: billingEvents.id });
  if (account && subscription !== undefined && isFirst.length > 0) {
    await applySubscription(db, account.tenantId, subscription);
  }
  return { received: true };
}

function customerOf(event: Stripe.Event): string | undefined {
  const object = event.data.object as { object?: string; id?: string; customer?: unknown };
  if (object.object === "customer") return object.id;
  if (typeof object.customer === "string") return object.customer;
  if (object.customer && typeof object.customer === "object" && "id" in object.customer) {
    return String(object.customer.id);
  }
  return undefined;
}

/** The nightly reconcile: every account's subscription as the processor has it now. */
export async function unscopedReconcileBilling(db: Executor) {
  const stripe = processor();
  const accounts = await db.select().from(billingAccounts);
  let failed = 0;
  for (const account of accounts) {
    try {
      await applySubscription(db, account.tenantId, await currentSubscription(stripe, account.customerId));
    } catch (error) {
      failed += 1;
      log.warn("billing reconcile failed for a namespace", { tenant: account.tenantId, error: errorText(error) });
    }
  }
  return { accounts: accounts.length, failed };
}

/** The namespace's accepted devices, the most used first (sessions in the last 30 days). */
export async function listMostUsedDevices(db: Executor, scope: Scope) {
  billingFor(scope);
  const { name, isFull } = await namespaceState(db, scope.tenantId);
  const rows = await mostUsedDevices(db, scope.tenantId);
  return rows.map((row) => describeDevice(row, name, isFull));
}

/**
 * The owner keeps `choices` (at most the free plan's devices) and the other accepted devices
 * become `removed`: kept with their data, refusing sessions, back when a subscription is active.
 */
export async function chooseDevices(db: Executor, scope: Scope, choices: string[]) {
  billingFor(scope);
  const kept = [...new Set(choices)];
  const removed = await db.transaction(async (tx) => {
    const [namespace] = await tx
      .select({ maxDevices: namespaces.maxDevices })
      .from(namespaces)
      .where(eq(namespaces.tenantId, scope.tenantId))
      .for("no key update");
    if (!namespace) throw new CodedError(404, "namespace_not_found", "namespace not found");
    const { limit, isFreePlan } = await deviceLimit(tx, scope.tenantId, namespace.maxDevices);
    if (!isFreePlan) {
      throw new CodedError(400, "device_choice_not_needed", "the namespace's plan keeps all its devices");
    }
    if (kept.length > limit) {
      throw new CodedError(400, "too_many_devices", `choices: at most ${limit} devices on the free plan`);
    }
    const found = kept.length
      ? await tx
          .select({ uid: devices.uid })
          .from(devices)
          .where(and(eq(devices.tenantId, scope.tenantId), eq(devices.status, "accepted"), inArray(devices.uid, kept)))
      : [];
    const unknown = kept.filter((uid) => !found.some((row) => row.uid === uid));
    if (unknown.length > 0) {
      throw new CodedError(400, "unknown_device", `choices: not an accepted device of the namespace: ${unknown[0]}`);
    }
    await tx
      .update(billingAccounts)
      .set({ isChoicePending: false })
      .where(eq(billingAccounts.tenantId, scope.tenantId));
    const removedRows = await tx
      .update(devices)
      .set({ status: "removed", statusUpdateAt: sql`now()` })
      .where(
        and(
          eq(devices.tenantId, scope.tenantId),
          eq(devices.status, "accepted"),
          kept.length ? notInArray(devices.uid, kept) : undefined,
        ),
      )
      .returning();
    await auditChange(
      tx,
      scope,
      "billing.device_choice",
      { type: "namespace", id: scope.tenantId },
      { kept, removed: removedRows.map((row) => row.uid) },
    );
    return removedRows;
  });
  for (const row of removed) deviceRevoked.emit(row.uid);
  await announceStatuses(db, removed);
  return { kept, removed: removed.map((row) => row.uid) };
}
