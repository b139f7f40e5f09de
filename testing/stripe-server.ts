import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * A Stripe-compatible HTTP server of the test suite's own: the payment processor cannot be
 * reached from the test machines, so the service's official `stripe` client is pointed here
 * (STRIPE_API_HOST/PORT/PROTOCOL). It keeps customers, payment methods, hosted setup pages
 * (Checkout in setup mode), subscriptions, invoices and events in memory, in the shapes of the
 * real API for the calls the service makes. Webhooks are signed with the library's own helper.
 */

export const stripeTestKey = "sk_test_suite_key";
export const stripeWebhookSecret = "whsec_suite_secret";
export const stripeTestPrice = "price_suite_per_namespace";

type Obj = Record<string, unknown> & { id: string };
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;
const monthSeconds = 30 * 86_400;

/** Form bodies as the client encodes them: `a[b][0][c]=v`. */
function parseForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, "").split("[");
    let node: Record<string, unknown> = root;
    for (const [index, part] of path.entries()) {
      if (index === path.length - 1) {
        node[part] = value;
      } else {
        node[part] ??= {};
        node = node[part] as Record<string, unknown>;
      }
    }
  }
  return root;
}

const list = (data: unknown[], url: string) => ({ object: "list", data, has_more: false, url });
const failure = (status: number, type: string, message: string, code?: string): Reply => ({
  status,
  body: { error: { type, message, ...(code ? { code } : {}) } },
});
const missing = (what: string, id: string) =>
  failure(404, "invalid_request_error", `No such ${what}: '${id}'`, "resource_missing");

/** What the service's environment needs to bill through a server of this kind on `port`. */
export const processorEnv = (port: number) => ({
  STRIPE_SECRET_KEY: stripeTestKey,
  STRIPE_WEBHOOK_SECRET: stripeWebhookSecret,
  STRIPE_PRICE_ID: stripeTestPrice,
  STRIPE_API_HOST: "127.0.0.1",
  STRIPE_API_PORT: String(port),
  STRIPE_API_PROTOCOL: "http",
});

/** A delivery of `event` signed as the processor signs it; a `secret` other than the shared one forges it. */
export function signedEvent(event: unknown, secret = stripeWebhookSecret) {
  const payload = JSON.stringify(event);
  return { payload, signature: new Stripe(stripeTestKey).webhooks.generateTestHeaderString({ payload, secret }) };
}

export type StripeServer = Awaited<ReturnType<typeof startStripeServer>>;

/** Starts the server on `port` (0: a free one) of the loopback interface. */
export async function startStripeServer(port = 0) {
  const customers = new Map<string, Obj>();
  const methods = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const idempotent = new Map<string, Reply>();
  let base = "";

  function emit(type: string, object: Obj) {
    const event: Obj = {
      id: newId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    return event;
  }

  function newCard(brand = "visa", last4 = "4242") {
    const method: Obj = {
      id: newId("pm"),
      object: "payment_method",
      type: "card",
      customer: null,
      created: now(),
      card: { brand, last4, exp_month: 12, exp_year: new Date().getFullYear() + 3, country: "US", funding: "credit" },
      billing_details: { name: null, email: null },
      livemode: false,
    };
    methods.set(method.id, method);
    return method;
  }

  function billInvoice(subscription: Obj) {
    const invoice: Obj = {
      id: newId("in"),
      object: "invoice",
      customer: subscription.customer,
      subscription: subscription.id,
      status: "paid",
      currency: "usd",
      amount_due: 1000,
      amount_paid: 1000,
      created: now(),
    };
    invoices.set(invoice.id, invoice);
    emit("invoice.paid", invoice);
  }

  /** The processor changes a subscription (a cancel, a failed renewal): answers the event it emits. */
  function changeStatus(id: string, status: string): Reply {
    const subscription = subscriptions.get(id);
    if (!subscription) return missing("subscription", id);
    subscription.status = status;
    const type = status === "canceled" ? "customer.subscription.deleted" : "customer.subscription.updated";
    return { status: 200, body: emit(type, subscription) };
  }

  type Handler = (ids: string[], query: URLSearchParams, body: Record<string, unknown>) => Reply;

  function createCustomer(_ids: string[], _query: URLSearchParams, body: Record<string, unknown>): Reply {
    const customer: Obj = {
      id: newId("cus"),
      object: "customer",
      name: body.name ?? null,
      email: body.email ?? null,
      metadata: body.metadata ?? {},
      invoice_settings: { default_payment_method: null },
      created: now(),
      livemode: false,
    };
    customers.set(customer.id, customer);
    emit("customer.created", customer);
    return { status: 200, body: customer };
  }

  function readCustomer([id = ""]: string[]): Reply {
    const customer = customers.get(id);
    return customer ? { status: 200, body: customer } : missing("customer", id);
  }

  function updateCustomer([id = ""]: string[], _query: URLSearchParams, body: Record<string, unknown>): Reply {
    const customer = customers.get(id);
    if (!customer) return missing("customer", id);
    const settings = body.invoice_settings as { default_payment_method?: string } | undefined;
    if (settings?.default_payment_method !== undefined) {
      const chosen = methods.get(settings.default_payment_method);
      if (!chosen || chosen.customer !== customer.id) return missing("PaymentMethod", settings.default_payment_method);
      customer.invoice_settings = { default_payment_method: chosen.id };
    }
    emit("customer.updated", customer);
    return { status: 200, body: customer };
  }

  function customerMethods([id = ""]: string[], _query: URLSearchParams): Reply {
    if (!customers.has(id)) return missing("customer", id);
    const own = [...methods.values()].filter((item) => item.customer === id);
    return { status: 200, body: list(own, `/v1/customers/${id}/payment_methods`) };
  }

  function readMethod([id = ""]: string[]): Reply {
    const method = methods.get(id);
    return method ? { status: 200, body: method } : missing("PaymentMethod", id);
  }

  function attachMethod([id = ""]: string[], _query: URLSearchParams, body: Record<string, unknown>): Reply {
    const method = methods.get(id);
    if (!method) return missing("PaymentMethod", id);
    const customer = customers.get(String(body.customer));
    if (!customer) return missing("customer", String(body.customer));
    if (method.customer && method.customer !== customer.id) {
      return failure(400, "invalid_request_error", "The payment method is attached to another customer.");
    }
    method.customer = customer.id;
    emit("payment_method.attached", method);
    return { status: 200, body: method };
  }

  function detachMethod([id = ""]: string[]): Reply {
    const method = methods.get(id);
    if (!method) return missing("PaymentMethod", id);
    const owner = customers.get(String(method.customer));
    const settings = owner?.invoice_settings as { default_payment_method: string | null } | undefined;
    if (owner && settings?.default_payment_method === method.id) {
      owner.invoice_settings = { default_payment_method: null };
    }
    method.customer = null;
    emit("payment_method.detached", method);
    return { status: 200, body: method };
  }

  function createSession(_ids: string[], _query: URLSearchParams, body: Record<string, unknown>): Reply {
    if (!customers.has(String(body.customer))) return missing("customer", String(body.customer));
    const id = newId("cs");
    const session: Obj = {
      id,
      object: "checkout.session",
      mode: body.mode,
      customer: body.customer,
      success_url: body.success_url,
      cancel_url: body.cancel_url,
      status: "open",
      url: `${base}/pay/${id}`,
    };
    sessions.set(id, session);
    return { status: 200, body: session };
  }

  function createSubscription(_ids: string[], _query: URLSearchParams, body: Record<string, unknown>): Reply {
    const customer = customers.get(String(body.customer));
    if (!customer) return missing("customer", String(body.customer));
    const items = body.items as Record<string, { price?: string }> | undefined;
    const price = items?.["0"]?.price;
    if (price !== stripeTestPrice) return missing("price", String(price));
    const settings = customer.invoice_settings as { default_payment_method: string | null };
    const card = settings.default_payment_method ? methods.get(settings.default_payment_method) : undefined;
    const start = now();
    const subscription: Obj = {
      id: newId("sub"),
      object: "subscription",
      customer: customer.id,
      status: card ? "active" : "incomplete",
      created: start,
      cancel_at_period_end: false,
      items: {
        object: "list",
        data: [
          {
            id: newId("si"),
            object: "subscription_item",
            price: { id: price, object: "price" },
            quantity: 1,
            current_period_start: start,
            current_period_end: start + monthSeconds,
          },
        ],
        has_more: false,
      },
    };
    subscriptions.set(subscription.id, subscription);
    if (card) billInvoice(subscription);
    emit("customer.subscription.created", subscription);
    return { status: 200, body: subscription };
  }

  function listSubscriptions(_ids: string[], query: URLSearchParams): Reply {
    const customer = query.get("customer");
    const status = query.get("status") ?? "all";
    const found = [...subscriptions.values()].filter(
      (item) => (!customer || item.customer === customer) && (status === "all" || item.status === status),
    );
    return { status: 200, body: list(found, "/v1/subscriptions") };
  }

  function readSubscription([id = ""]: string[]): Reply {
    const subscription = subscriptions.get(id);
    return subscription ? { status: 200, body: subscription } : missing("subscription", id);
  }

  function listInvoices(_ids: string[], query: URLSearchParams): Reply {
    const subscription = query.get("subscription");
    const found = [...invoices.values()].filter((item) => !subscription || item.subscription === subscription);
    return { status: 200, body: list(found.reverse(), "/v1/invoices") };
  }

  const routes: [method: string, path: RegExp, handler: Handler][] = [
    ["POST", /^\/v1\/customers$/, createCustomer],
    ["GET", /^\/v1\/customers\/([^/]+)$/, readCustomer],
    ["POST", /^\/v1\/customers\/([^/]+)$/, updateCustomer],
    ["GET", /^\/v1\/customers\/([^/]+)\/payment_methods$/, customerMethods],
    ["GET", /^\/v1\/payment_methods\/([^/]+)$/, readMethod],
    ["POST", /^\/v1\/payment_methods\/([^/]+)\/attach$/, attachMethod],
    ["POST", /^\/v1\/payment_methods\/([^/]+)\/detach$/, detachMethod],
    ["POST", /^\/v1\/checkout\/sessions$/, createSession],
    ["POST", /^\/v1\/subscriptions$/, createSubscription],
    ["GET", /^\/v1\/subscriptions$/, listSubscriptions],
    ["GET", /^\/v1\/subscriptions\/([^/]+)$/, readSubscription],
    ["GET", /^\/v1\/invoices$/, listInvoices],
    // Not Stripe's: how a test in another process (a browser spec) makes the processor change a subscription.
    [
      "POST",
      /^\/test\/subscriptions\/([^/]+)\/status$/,
      ([id = ""], _query, body) => changeStatus(id, String(body.status)),
    ],
  ];

  function route(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): Reply {
    for (const [routeMethod, pattern, handler] of routes) {
      const match = method === routeMethod ? path.match(pattern) : null;
      if (match) return handler(match.slice(1), query, body);
    }
    return failure(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
  }

  /** The hosted page: a form standing for the processor's card entry, which then sends the browser back. */
  function hostedPage(method: string, id: string, response: ServerResponse) {
    const session = sessions.get(id);
    if (!session) return response.writeHead(404).end("no such page");
    if (method === "GET") {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><title>Card</title><form method="post"><p>Test card 4242</p><button>Save card</button></form>`,
        );
      return;
    }
    const card = newCard();
    card.customer = session.customer;
    session.status = "complete";
    emit("checkout.session.completed", session);
    response.writeHead(303, { location: String(session.success_url) }).end();
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? "/", "http://localhost");
    const method = request.method ?? "GET";
    const page = url.pathname.match(/^\/pay\/([^/]+)$/);
    if (page) return hostedPage(method, page[1] ?? "", response);
    let reply: Reply;
    const key = request.headers["idempotency-key"];
    if (request.headers.authorization !== `Bearer ${stripeTestKey}`) {
      reply = failure(401, "authentication_error", "Invalid API Key provided.");
    } else if (typeof key === "string" && idempotent.has(key)) {
      reply = idempotent.get(key) as Reply;
    } else {
      reply = route(method, url.pathname, url.searchParams, parseForm(Buffer.concat(chunks).toString()));
      if (typeof key === "string" && method === "POST") idempotent.set(key, reply);
    }
    response
      .writeHead(reply.status, { "content-type": "application/json", "request-id": newId("req") })
      .end(JSON.stringify(reply.body));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  base = `http://127.0.0.1:${address.port}`;

  return {
    port: address.port,
    /** What the service's environment needs to bill through this server. */
    env: processorEnv(address.port),
    /** A card as the processor's browser component makes it: not yet attached to anyone. */
    newCard: (brand?: string, last4?: string) => newCard(brand, last4).id,
    /** The processor changes a subscription (a cancel, a failed renewal): returns the event it emits. */
    setSubscriptionStatus: (id: string, status: string) => {
      const reply = changeStatus(id, status);
      if (reply.status !== 200) throw new Error(`no subscription ${id}`);
      return reply.body as Obj;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
