import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentBody, authDevice } from "@/testing/agents";
import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { sshPort, sshWithPassword } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from "@/testing/webhook-receiver";

/**
 * Webhooks against a real HTTP receiver on the loopback (the run's server may send to 127.0.0.1:
 * WEBHOOK_ALLOWED_CIDRS, first retry after 1 s): what each event type delivers, signed as
 * Standard Webhooks says and checked with its library, retries with their outcome, the test event
 * and redelivery, the address rule with a canary, roles and tenancy.
 */

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const owner = (namespace: SeededNamespace) => ({ token: namespace.owner.tenantToken });

type Delivered = { type: string; timestamp: string; data: Record<string, unknown> };
type Delivery = {
  id: string;
  type: string;
  status: string;
  attempts: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
};

/** A webhook of the namespace to the receiver, on its own path so that tests tell their requests apart. */
async function createHook(namespace: SeededNamespace, events: string[], extra: Record<string, unknown> = {}) {
  const path = `/${crypto.randomUUID()}`;
  const response = await call("POST", "/api/webhooks", {
    ...owner(namespace),
    body: { url: `${receiver.url}${path}`, events, ...extra },
  });
  expect(response.status, response.text).toBe(200);
  const hook = response.body as { id: string; secret: string; url: string };
  return { ...hook, path, requests: () => receiver.received.filter((request) => request.path === path) };
}

type Hook = Awaited<ReturnType<typeof createHook>>;

/** The bodies the receiver got for the webhook, verified with its secret. */
const bodies = (hook: Hook) => hook.requests().map((request) => verifyHook(hook.secret, request) as Delivered);

async function waitForType(hook: Hook, type: string, count = 1) {
  await waitFor(
    `${count} ${type} deliveries`,
    () => bodies(hook).filter((body) => body.type === type).length >= count,
    20,
  );
  return bodies(hook).filter((body) => body.type === type);
}

async function deliveries(namespace: SeededNamespace, hook: Hook, query = "") {
  const response = await call("GET", `/api/webhooks/${hook.id}/deliveries?per_page=100&${query}`, owner(namespace));
  expect(response.status, response.text).toBe(200);
  return response.body as Delivery[];
}

describe("webhooks", () => {
  it("answers the secret once, never after, and records each change in the audit trail", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, ["device.online", "device.online", "session.ended"]);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await call("GET", `/api/webhooks/${hook.id}`, owner(namespace));
    expect(read.body).toMatchObject({
      id: hook.id,
      events: ["device.online", "session.ended"],
      enabled: true,
      last_delivery: null,
    });
    expect(read.text).not.toContain("whsec_");
    const listed = await call("GET", "/api/webhooks", owner(namespace));
    expect(listed.headers.get("x-total-count")).toBe("1");
    expect(listed.text).not.toContain("whsec_");
    const updated = await call("PATCH", `/api/webhooks/${hook.id}`, { ...owner(namespace), body: { enabled: false } });
    expect(updated.body).toMatchObject({ enabled: false, events: ["device.online", "session.ended"] });
    const rotated = await call("POST", `/api/webhooks/${hook.id}/secret`, owner(namespace));
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect((await call("DELETE", `/api/webhooks/${hook.id}`, owner(namespace))).status).toBe(200);
    expect((await call("GET", `/api/webhooks/${hook.id}`, owner(namespace))).status).toBe(404);
    const trail = await call("GET", "/api/audit?action=webhook.", owner(namespace));
    expect((trail.body as { action: string }[]).map((entry) => entry.action)).toEqual([
      "webhook.delete",
      "webhook.secret_rotate",
      "webhook.update",
      "webhook.create",
    ]);
    expect(trail.text).not.toContain("whsec_");
  });

  it("delivers a device's life, each signed: registered, accepted, offline, online, removed, rejected", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, [
      "device.registered",
      "device.accepted",
      "device.online",
      "device.offline",
      "device.removed",
      "device.rejected",
    ]);
    const device = await seedDevice(namespace, { status: "accept", isOnline: false });
    const [registered] = await waitForType(hook, "device.registered");
    expect(registered?.data).toMatchObject({ tenant_id: namespace.tenantId, uid: device.uid, name: device.name });
    const [accepted] = await waitForType(hook, "device.accepted");
    expect(accepted?.data).toMatchObject({ uid: device.uid, status: "accepted", name: device.name });
    await waitForType(hook, "device.offline");
    const heartbeat = await authDevice(
      agentBody(namespace.tenantId, {
        hostname: device.hostname,
        identity: { mac: device.mac },
        public_key: device.publicKey,
      }),
    );
    expect(heartbeat.status, heartbeat.text).toBe(200);
    const [online] = await waitForType(hook, "device.online");
    expect(online?.data).toMatchObject({ uid: device.uid, online: true });
    expect((await call("DELETE", `/api/devices/${device.uid}`, owner(namespace))).status).toBe(200);
    const [removed] = await waitForType(hook, "device.removed");
    expect(removed?.data).toMatchObject({ uid: device.uid });
    const rejected = await seedDevice(namespace, { status: "reject" });
    const [refusedDevice] = await waitForType(hook, "device.rejected");
    expect(refusedDevice?.data).toMatchObject({ uid: rejected.uid, status: "rejected", name: rejected.name });
    for (const request of hook.requests()) {
      expect(request.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.headers["content-type"]).toBe("application/json");
    }
    // The receiver answers before the outcome is written: wait for every outcome, then check each.
    let listed: Delivery[] = [];
    await waitFor(
      () => `every delivery's outcome, got ${JSON.stringify(listed.map(({ type, status }) => ({ type, status })))}`,
      async () => {
        listed = await deliveries(namespace, hook);
        return listed.length >= 6 && listed.every((delivery) => delivery.status !== "pending");
      },
      20,
    );
    expect(listed.every((delivery) => delivery.status === "delivered" && delivery.response_status === 200)).toBe(true);
  });

  it("makes a forged, altered or replayed delivery detectable with the documented check", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, ["audit"]);
    await call("PUT", `/api/namespaces/${namespace.tenantId}`, { ...owner(namespace), body: { name: namespace.name } });
    await waitForType(hook, "audit");
    const [request] = hook.requests();
    if (!request) throw new Error("no request");
    expect(() => verifyHook(hook.secret, request)).not.toThrow();
    // Another secret (a forger), a changed body, an old timestamp (a replay after the window).
    const other = await createHook(namespace, ["audit"]);
    expect(() => verifyHook(other.secret, request)).toThrow();
    expect(() => verifyHook(hook.secret, { ...request, body: request.body.replace("audit", "audiT") })).toThrow();
    const old = String(Number(request.headers["webhook-timestamp"]) - 600);
    expect(() =>
      verifyHook(hook.secret, { ...request, headers: { ...request.headers, "webhook-timestamp": old } }),
    ).toThrow();
    // A replay within the window verifies: the receiver tells it by the id it has already seen.
    expect(hook.requests().filter((seen) => seen.headers["webhook-id"] === request.headers["webhook-id"])).toHaveLength(
      1,
    );
  });

  it("sends every audit row and a refused SSH login with its reason, but nothing of other namespaces", async () => {
    const namespace = await seedNamespace();
    const stranger = await seedNamespace();
    const hook = await createHook(namespace, ["login.refused", "audit"]);
    const device = await seedDevice(namespace, { status: "accept", isOnline: false });
    await seedDevice(stranger, { status: "accept" });
    const port = await sshPort();
    const attempt = await sshWithPassword(port, "wrong", [`root@${namespace.name}.${device.name}@127.0.0.1`, "true"]);
    expect(attempt.code).not.toBe(0);
    const [refused] = await waitForType(hook, "login.refused");
    expect(refused?.data).toMatchObject({ uid: device.uid, username: "root", reason: expect.any(String) });
    expect(String(refused?.data.reason)).not.toBe("");
    // The hook's own creation may be delivered too, in any order: waited for by action, not by count.
    const auditActions = () => bodies(hook).flatMap((body) => (body.type === "audit" ? [body.data.action] : []));
    await waitFor(
      () => `device.accept and ssh.login audit deliveries (got ${auditActions().join(", ")})`,
      () => auditActions().includes("device.accept") && auditActions().includes("ssh.login"),
      20,
    );
    for (const body of bodies(hook)) expect(body.data.tenant_id).toBe(namespace.tenantId);
  });

  it("retries a failing receiver with back-off and keeps each attempt's outcome", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, ["device.online"]);
    receiver.answerNext({ status: 503, body: "busy, come back later" });
    const test = await call("POST", `/api/webhooks/${hook.id}/test`, owner(namespace));
    expect(test.status, test.text).toBe(200);
    await waitFor("a second attempt", () => hook.requests().length >= 2, 20);
    const [first, second] = hook.requests();
    expect(first?.headers["webhook-id"]).toBe(test.body.id);
    expect(second?.headers["webhook-id"]).toBe(test.body.id);
    expect(second?.body).toBe(first?.body);
    await waitFor("the delivery delivered", async () => (await deliveries(namespace, hook))[0]?.status === "delivered");
    const [delivery] = await deliveries(namespace, hook);
    expect(delivery).toMatchObject({ type: "webhook.test", attempts: 2, response_status: 200, response_body: "ok" });
    const webhook = await call("GET", `/api/webhooks/${hook.id}`, owner(namespace));
    expect(webhook.body.last_delivery).toMatchObject({ status: "delivered", response_status: 200 });
  });

  it("delivers to one receiver while another has not answered yet", async () => {
    const namespace = await seedNamespace();
    const [slow, quick] = [
      await createHook(namespace, ["device.online"]),
      await createHook(namespace, ["device.online"]),
    ];
    receiver.answerNext("hold");
    await call("POST", `/api/webhooks/${slow.id}/test`, owner(namespace));
    await waitFor("the slow receiver's request", () => slow.requests().length === 1, 20);
    await call("POST", `/api/webhooks/${quick.id}/test`, owner(namespace));
    // The slow one has 10 s to answer; the quick one's delivery does not wait for it.
    await waitFor("the quick delivery", async () => (await deliveries(namespace, quick))[0]?.status === "delivered", 5);
    expect((await deliveries(namespace, slow))[0]?.status).toBe("pending");
  });

  it("sends a test event to a disabled webhook, holds its other events, and redelivers on request", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, ["audit"], { enabled: false });
    await call("PUT", `/api/namespaces/${namespace.tenantId}`, { ...owner(namespace), body: { name: namespace.name } });
    const test = await call("POST", `/api/webhooks/${hook.id}/test`, owner(namespace));
    await waitForType(hook, "webhook.test");
    expect(bodies(hook).map((body) => body.type)).toEqual(["webhook.test"]);
    const redelivered = await call(
      "POST",
      `/api/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver`,
      owner(namespace),
    );
    expect(redelivered.body).toMatchObject({ id: test.body.id, status: "pending", attempts: 0 });
    await waitForType(hook, "webhook.test", 2);
    const other = await seedNamespace();
    const elsewhere = await call("POST", `/api/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver`, owner(other));
    expect(elsewhere.status).toBe(404);
    expect((await call("GET", `/api/webhooks/${hook.id}/deliveries`, owner(other))).status).toBe(404);
  });

  it("refuses to send to a loopback address that WEBHOOK_ALLOWED_CIDRS does not list: the canary sees no connection", async () => {
    // 127.0.0.2 is the loopback, as private or metadata addresses are refused: never an address off this machine.
    let connections = 0;
    const canary: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.2", resolve));
    const { port } = canary.address() as { port: number };
    try {
      const namespace = await seedNamespace();
      const created = await call("POST", "/api/webhooks", {
        ...owner(namespace),
        body: { url: `http://127.0.0.2:${port}/hook`, events: ["audit"] },
      });
      expect(created.status).toBe(200);
      await call("POST", `/api/webhooks/${created.body.id}/test`, owner(namespace));
      let delivery: Delivery | undefined;
      await waitFor("the refused attempt", async () => {
        const response = await call("GET", `/api/webhooks/${created.body.id}/deliveries`, owner(namespace));
        delivery = (response.body as Delivery[])[0];
        return delivery?.error !== null && delivery?.error !== undefined;
      });
      expect(delivery?.error).toBe("127.0.0.2 is a loopback address, not allowed (WEBHOOK_ALLOWED_CIDRS)");
      expect(delivery?.response_status).toBeNull();
      expect(connections).toBe(0);
    } finally {
      canary.close();
    }
  });

  it("lets administrators and owners manage webhooks, and nobody another namespace's", async () => {
    const namespace = await seedNamespace();
    const hook = await createHook(namespace, ["audit"]);
    for (const role of ["operator", "observer"] as const) {
      const member = await seedMember(namespace, role);
      expect((await call("GET", "/api/webhooks", { token: member.tenantToken })).status).toBe(403);
    }
    const admin = await seedMember(namespace, "administrator");
    expect((await call("GET", `/api/webhooks/${hook.id}`, { token: admin.tenantToken })).status).toBe(200);
    const other = await seedNamespace();
    for (const [method, path] of [
      ["GET", `/api/webhooks/${hook.id}`],
      ["PATCH", `/api/webhooks/${hook.id}`],
      ["DELETE", `/api/webhooks/${hook.id}`],
      ["POST", `/api/webhooks/${hook.id}/test`],
      ["POST", `/api/webhooks/${hook.id}/secret`],
    ] as const) {
      const response = await call(method, path, {
        ...owner(other),
        body: method === "PATCH" ? { enabled: false } : undefined,
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await call("GET", "/api/webhooks", owner(other))).headers.get("x-total-count")).toBe("0");
  });
});
