import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingOperations } from "@/lib/api/billing";
import { loginRefusedCode } from "@/lib/ssh/web-terminal";
import { acceptAgentDevice, type RunningAgent, startAgent } from "@/testing/agents";
import { cli, expectOk } from "@/testing/cli";
import { type CallOptions, call, randomUid } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser, tokenFor } from "@/testing/seeds/users";
import { createAccount, isRoot, openTerminal, sshPort, sshWithPassword } from "@/testing/ssh";
import { type StripeServer, signedEvent, startStripeServer } from "@/testing/stripe-server";

// The payment processor (Stripe) cannot be reached from the test machines: the server's official
// `stripe` client is pointed (STRIPE_API_HOST/PORT/PROTOCOL) at the test suite's own
// Stripe-compatible server (testing/stripe-server.ts), and webhooks are signed with the library's
// own test-header helper. Everything else is real: the server, its database, the agent, OpenSSH.

let processor: StripeServer;
let server: OwnServer;
const base = () => ({ baseUrl: server.url });

beforeAll(async () => {
  processor = await startStripeServer();
  server = await startOwnServer({ ...processor.env, FREE_PLAN_DEVICES: "3" });
});

afterAll(async () => {
  await server?.stop();
  await processor?.stop();
});

const newNamespace = () => seedNamespace(undefined, base());
const asOwner = (namespace: SeededNamespace): CallOptions => ({ ...base(), token: namespace.owner.tenantToken });

async function ok<T = Record<string, unknown>>(method: string, path: string, options: CallOptions): Promise<T> {
  const response = await call<T>(method, path, options);
  expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
  return response.body;
}

const accept = (namespace: SeededNamespace, uid: string) =>
  call("PATCH", `/api/devices/${uid}/accept`, asOwner(namespace));

const statusOf = async (namespace: SeededNamespace, uid: string) =>
  (await ok<{ status: string }>("GET", `/api/devices/${uid}`, asOwner(namespace))).status;

async function deliver(event: unknown, secret?: string) {
  const { payload, signature } = signedEvent(event, secret);
  return call("POST", "/api/billing/webhook", {
    ...base(),
    rawBody: payload,
    headers: { "content-type": "application/json", "stripe-signature": signature },
  });
}

/** A card saved on the processor's hosted page, as the owner's browser does it. */
async function saveCardOnHostedPage(namespace: SeededNamespace) {
  const { url } = await ok<{ url: string }>("POST", "/api/billing/setup-session", { ...asOwner(namespace), body: {} });
  const page = await fetch(url, { method: "POST", redirect: "manual" });
  expect(page.status).toBe(303);
  return page.headers.get("location");
}

async function subscribe(namespace: SeededNamespace) {
  return ok<{ id: string; active: boolean; status: string; invoices: unknown[] }>(
    "POST",
    "/api/billing/subscription",
    asOwner(namespace),
  );
}

describe("the free plan", () => {
  it("says billing is on in /info; namespace.billing is null until the customer exists", async () => {
    expect((await call("GET", "/info", base())).body.billing).toBe(true);
    const namespace = await newNamespace();
    expect((await ok("GET", `/api/namespaces/${namespace.tenantId}`, asOwner(namespace))).billing).toBeNull();
    const missing = await call("GET", "/api/billing/customer", asOwner(namespace));
    expect([missing.status, missing.body]).toEqual([404, { message: expect.any(String), code: "customer_not_found" }]);
  });

  it("holds under concurrent accepts: 3 of 7 are accepted, the others answer 402 and stay pending", async () => {
    const namespace = await newNamespace();
    const devices = await Promise.all(Array.from({ length: 7 }, () => seedDevice(namespace, base())));
    const answers = await Promise.all(devices.map((device) => accept(namespace, device.uid)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 402, 402, 402, 402]);
    for (const answer of answers.filter((item) => item.status === 402)) {
      expect(answer.body).toEqual({ message: expect.stringMatching(/free plan/), code: "device_limit_reached" });
    }
    const statuses = await Promise.all(devices.map((device) => statusOf(namespace, device.uid)));
    expect(statuses.filter((status) => status === "accepted")).toHaveLength(3);
    expect(statuses.filter((status) => status === "pending")).toHaveLength(4);
  });
});

describe("customer, cards and subscription", () => {
  it("adds cards on the hosted page or by id, never seeing their numbers; default and detach", async () => {
    const namespace = await newNamespace();
    const customer = await ok<{ id: string; payment_methods: unknown[] }>(
      "POST",
      "/api/billing/customer",
      asOwner(namespace),
    );
    expect(customer).toMatchObject({
      id: expect.stringMatching(/^cus_/),
      email: namespace.owner.email,
      payment_methods: [],
    });
    expect(await saveCardOnHostedPage(namespace)).toMatch(/^http:\/\/localhost:\d+\/settings\/billing\?setup=done$/);
    const card = processor.newCard("mastercard", "4444");
    const attached = await ok<{ payment_methods: { id: string; number: string; cvc: string; default: boolean }[] }>(
      "POST",
      "/api/billing/paymentmethod/attach",
      { ...asOwner(namespace), body: { id: card } },
    );
    expect(attached.payment_methods).toHaveLength(2);
    for (const method of attached.payment_methods) {
      expect(method.number).toMatch(/^\*{4} \*{4} \*{4} \d{4}$/);
      expect(method.cvc).toBe("");
    }
    const hosted = attached.payment_methods.find((method) => method.id !== card);
    const chosen = await ok<typeof attached>("POST", "/api/billing/paymentmethod/default", {
      ...asOwner(namespace),
      body: { id: card },
    });
    expect(chosen.payment_methods.filter((method) => method.default).map((method) => method.id)).toEqual([card]);
    const detached = await ok<typeof attached>("POST", "/api/billing/paymentmethod/detach", {
      ...asOwner(namespace),
      body: { id: hosted?.id },
    });
    expect(detached.payment_methods.map((method) => method.id)).toEqual([card]);
    const foreign = await call("POST", "/api/billing/paymentmethod/default", {
      ...asOwner(namespace),
      body: { id: processor.newCard() },
    });
    expect([foreign.status, foreign.body.code]).toEqual([404, "payment_method_not_found"]);
  });

  it("a subscription lifts the limit; its invoices come from the processor", async () => {
    const namespace = await newNamespace();
    await ok("POST", "/api/billing/customer", asOwner(namespace));
    const noCard = await call("POST", "/api/billing/subscription", asOwner(namespace));
    expect([noCard.status, noCard.body.code]).toEqual([402, "payment_method_required"]);
    await saveCardOnHostedPage(namespace);
    const subscription = await subscribe(namespace);
    expect(subscription).toMatchObject({ active: true, status: "active" });
    expect(subscription.invoices).toEqual([{ id: expect.any(String), status: "paid", currency: "usd", amount: 1000 }]);
    expect(await ok("GET", "/api/billing/subscription", asOwner(namespace))).toEqual(subscription);
    const again = await call("POST", "/api/billing/subscription", asOwner(namespace));
    expect([again.status, again.body.code]).toEqual([400, "subscription_exists"]);
    const devices = await Promise.all(Array.from({ length: 5 }, () => seedDevice(namespace, base())));
    for (const device of devices) expect((await accept(namespace, device.uid)).status).toBe(200);
    const read = await ok<{ billing: unknown }>("GET", `/api/namespaces/${namespace.tenantId}`, asOwner(namespace));
    expect(read.billing).toMatchObject({ active: true, status: "active", device_choice_pending: false });
  });
});

describe("webhooks", () => {
  it("refuses a forged or unsigned event with 400 invalid_signature", async () => {
    const namespace = await newNamespace();
    await ok("POST", "/api/billing/customer", asOwner(namespace));
    await saveCardOnHostedPage(namespace);
    const subscription = await subscribe(namespace);
    const event = processor.setSubscriptionStatus(subscription.id, "canceled");
    const forged = await deliver(event, "whsec_not_the_shared_secret");
    expect([forged.status, forged.body]).toEqual([400, { message: expect.any(String), code: "invalid_signature" }]);
    const unsigned = await call("POST", "/api/billing/webhook", { ...base(), rawBody: JSON.stringify(event) });
    expect(unsigned.status).toBe(400);
    const read = await ok<{ billing: { status: string } }>(
      "GET",
      `/api/namespaces/${namespace.tenantId}`,
      asOwner(namespace),
    );
    expect(read.billing.status).toBe("active");
  });
});

describe("the reconcile", () => {
  it("`billing reconcile` (CLI) catches up with a change whose webhook never came", async () => {
    const namespace = await newNamespace();
    await ok("POST", "/api/billing/customer", asOwner(namespace));
    await saveCardOnHostedPage(namespace);
    const subscription = await subscribe(namespace);
    processor.setSubscriptionStatus(subscription.id, "unpaid");
    // The CLI runs the command in the server, or on the database itself with this environment.
    Object.assign(process.env, processor.env);
    await expectOk(cli(server.data, "billing", "reconcile"), /^reconciled (\d+) of \1 billing accounts\n$/);
    const read = await ok<{ billing: unknown }>("GET", `/api/namespaces/${namespace.tenantId}`, asOwner(namespace));
    expect(read.billing).toMatchObject({ active: false, status: "unpaid" });
  });
});

describe("roles", () => {
  it("lets only the owner (or the owner's API key) in: the others get 403 not_owner on every operation", async () => {
    const namespace = await newNamespace();
    const members = await Promise.all(
      (["administrator", "operator", "observer"] as const).map(async (role) => {
        const user = await seedUser({}, base());
        await ok("POST", `/api/namespaces/${namespace.tenantId}/members`, {
          ...asOwner(namespace),
          body: { identifier: user.username, role },
        });
        return { role, token: await tokenFor(user, namespace.tenantId, base()) };
      }),
    );
    const withRoles = billingOperations.filter((operation) => operation.access.kind !== "public");
    for (const member of members) {
      for (const operation of withRoles) {
        const body = operation.method === "POST" ? { id: "pm_x", choices: [randomUid()] } : undefined;
        const response = await call(operation.method, operation.path, { ...base(), token: member.token, body });
        expect([operation.id, member.role, response.status, response.body.code]).toEqual([
          operation.id,
          member.role,
          403,
          "not_owner",
        ]);
      }
    }
    const ownerKey = await call("POST", "/api/namespaces/api-key", {
      ...asOwner(namespace),
      body: { name: "billing-owner", expires_at: -1, role: "owner" },
    });
    expect(ownerKey.status, ownerKey.text).toBe(200);
    const created = await call("POST", "/api/billing/customer", { ...base(), apiKey: ownerKey.body.id });
    expect(created.status, created.text).toBe(200);
  });

  it("with billing off (no STRIPE_SECRET_KEY, the run's server) answers 424 billing_not_configured", async () => {
    expect((await call("GET", "/info")).body.billing).toBe(false);
    const namespace = await seedNamespace();
    const response = await call("GET", "/api/billing/customer", { token: namespace.owner.tenantToken });
    expect(response.status).toBe(424);
    expect(response.body).toEqual({ message: expect.stringMatching(/not configured/), code: "billing_not_configured" });
    const key = await seedApiKey(namespace, "owner");
    expect((await call("GET", "/api/billing/devices-most-used", { apiKey: key })).status).toBe(424);
  });
});

describe.skipIf(!isRoot)(
  "the device choice, through the gateway (needs root: a test account, the agent as root)",
  () => {
    let namespace: SeededNamespace;
    let agent: RunningAgent;
    let account: ReturnType<typeof createAccount>;
    let agentUid: string;
    let others: string[];
    let port: number;
    let target: string;

    beforeAll(async () => {
      port = await sshPort(server.url);
      namespace = await newNamespace();
      account = createAccount();
      agent = startAgent(server.url, namespace.tenantId);
      agentUid = await acceptAgentDevice(agent.hostname, asOwner(namespace));
      await agent.tunnelUp();
      target = `${account.name}@${namespace.name}.${agent.hostname}@127.0.0.1`;
    });

    afterAll(async () => {
      await agent?.stop();
      account?.remove();
    });

    const login = () => sshWithPassword(port, account.password, ["-o", "NumberOfPasswordPrompts=1", target, "echo in"]);

    it("cancel -> the owner chooses -> the others are removed and refuse SSH -> resubscribe -> they return", async () => {
      await ok("POST", "/api/billing/customer", asOwner(namespace));
      await saveCardOnHostedPage(namespace);
      const subscription = await subscribe(namespace);
      others = [];
      for (let index = 0; index < 3; index++) {
        const device = await seedDevice(namespace, { ...base(), status: "accept" });
        others.push(device.uid);
      }
      expect((await login()).stdout.trim()).toBe("in");

      const canceled = processor.setSubscriptionStatus(subscription.id, "canceled");
      expect((await deliver(canceled)).status).toBe(200);
      const read = await ok<{ billing: unknown }>("GET", `/api/namespaces/${namespace.tenantId}`, asOwner(namespace));
      expect(read.billing).toMatchObject({ active: false, status: "canceled", device_choice_pending: true });
      const extra = await seedDevice(namespace, base());
      expect((await accept(namespace, extra.uid)).status).toBe(402);

      // Until the choice, sessions go to the most used devices: the agent's device has a session.
      const mostUsed = await ok<{ uid: string }[]>("GET", "/api/billing/devices-most-used", asOwner(namespace));
      expect(mostUsed[0]?.uid).toBe(agentUid);
      expect((await login()).stdout.trim()).toBe("in");

      const tooMany = await call("POST", "/api/billing/device-choice", {
        ...asOwner(namespace),
        body: { choices: [agentUid, ...others] },
      });
      expect([tooMany.status, tooMany.body.code]).toEqual([400, "too_many_devices"]);
      const chosen = await ok("POST", "/api/billing/device-choice", {
        ...asOwner(namespace),
        body: { choices: others },
      });
      expect(chosen).toEqual({ kept: others, removed: [agentUid] });
      expect(await statusOf(namespace, agentUid)).toBe("removed");
      const refused = await login();
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).not.toContain("in");

      // The browser terminal says why.
      const ticket = await call("POST", "/ws/ssh", {
        ...asOwner(namespace),
        body: { device: agentUid, username: account.name, password: account.password },
      });
      expect(ticket.status, ticket.text).toBe(200);
      const origin = `http://localhost:${new URL(server.url).port}`;
      const terminal = await openTerminal(ticket.body.token, origin, undefined, server.url);
      const closing = await new Promise<{ code: number; reason: string }>((resolve) =>
        terminal.socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      expect(closing).toEqual({ code: loginRefusedCode, reason: expect.stringMatching(/removed/) });

      // A replay of the cancel changes nothing.
      expect((await deliver(canceled)).status).toBe(200);
      expect(await statusOf(namespace, agentUid)).toBe("removed");

      const since = agent.output().length;
      const again = await subscribe(namespace);
      expect(again.active).toBe(true);
      expect(await statusOf(namespace, agentUid)).toBe("accepted");
      await agent.tunnelUp(since);
      expect((await login()).stdout.trim()).toBe("in");
      // The old subscription's late event leaves the new one standing.
      expect((await deliver({ ...canceled, id: `${canceled.id}_late` })).status).toBe(200);
      expect(await statusOf(namespace, agentUid)).toBe("accepted");

      // The audit trail tells the story: the owner's actions, the processor's status changes.
      type Entry = { action: string; actor: { type: string }; details: Record<string, unknown> };
      const trail = await ok<Entry[]>("GET", "/api/audit?action=billing.&per_page=100", asOwner(namespace));
      const story = trail.map((entry) => [entry.action, entry.actor.type]).reverse();
      expect(story.filter(([action]) => action !== "billing.subscription_status")).toEqual([
        ["billing.customer_create", "user"],
        ["billing.subscribe", "user"],
        ["billing.device_choice", "user"],
        ["billing.subscribe", "user"],
      ]);
      expect(trail.find((entry) => entry.action === "billing.device_choice")?.details).toEqual({
        kept: others,
        removed: [agentUid],
      });
      const statuses = trail.filter((entry) => entry.action === "billing.subscription_status").reverse();
      expect(statuses.map((entry) => [entry.actor.type, entry.details.to])).toContainEqual(["system", "canceled"]);
    });
  },
);
