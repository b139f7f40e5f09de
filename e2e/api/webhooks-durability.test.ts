import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentBody, authDevice } from "@/testing/agents";
import { call } from "@/testing/client";
import { newDataDir } from "@/testing/data-dir";
import { createTestDatabase } from "@/testing/database";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";
import { waitFor } from "@/testing/wait";
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from "@/testing/webhook-receiver";

/**
 * The webhooks' outbox on a server of this file's own, killed and started again on its data:
 * a delivery under way when the server dies is sent after the restart, with the same id; a
 * receiver that keeps failing or does not answer in time makes the delivery fail after its
 * last attempt. Short limits: a receiver has 1 s, 2 attempts, the retry after 1 s.
 */

const env = {
  WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  WEBHOOK_RETRY_SECONDS: "1",
  WEBHOOK_MAX_ATTEMPTS: "2",
  WEBHOOK_TIMEOUT_SECONDS: "1",
};

let receiver: WebhookReceiver;
let server: RunningServer;
let serverEnv: Record<string, string | undefined>;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  dropDatabase = database?.drop;
  serverEnv = { ...env, DATA_DIR: newDataDir(), DATABASE_URL: database?.url };
  server = await startServer(serverEnv);
  serverEnv.PORT = String(server.port);
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await dropDatabase?.();
  if (serverEnv?.DATA_DIR) rmSync(serverEnv.DATA_DIR, { recursive: true, force: true });
});

type Delivery = { id: string; status: string; attempts: number; response_status: number | null; error: string | null };

async function createHook(token: string, baseUrl: string) {
  const path = `/${crypto.randomUUID()}`;
  const created = await call("POST", "/api/webhooks", {
    baseUrl,
    token,
    body: { url: `${receiver.url}${path}`, events: ["device.registered"] },
  });
  expect(created.status, created.text).toBe(200);
  return {
    id: created.body.id as string,
    secret: created.body.secret as string,
    requests: () => receiver.received.filter((request) => request.path === path),
  };
}

describe("the webhooks' outbox", () => {
  it("sends a delivery that was under way when the server was killed, after the restart, with the same id", async () => {
    const namespace = await seedNamespace(undefined, { baseUrl: server.url });
    const token = namespace.owner.tenantToken;
    const hook = await createHook(token, server.url);
    receiver.answerNext("hold");
    const registered = await authDevice(agentBody(namespace.tenantId), { baseUrl: server.url });
    expect(registered.status, registered.text).toBe(200);
    await waitFor("the first attempt", () => hook.requests().length === 1, 30);
    server.process.kill("SIGKILL");
    await server.stop();
    server = await startServer(serverEnv);
    // The killed attempt's claim runs out (2 x 1 s + 10 s), then the delivery goes again.
    await waitFor("the attempt after the restart", () => hook.requests().length === 2, 60);
    const [killed, sent] = hook.requests();
    expect(sent?.headers["webhook-id"]).toBe(killed?.headers["webhook-id"]);
    expect(verifyHook(hook.secret, sent ?? { headers: {}, body: "", path: "" })).toMatchObject({
      type: "device.registered",
      data: { uid: registered.body.uid },
    });
    await waitFor("the delivery marked delivered", async () => {
      const listed = await call("GET", `/api/webhooks/${hook.id}/deliveries`, { baseUrl: server.url, token });
      return (listed.body as Delivery[])[0]?.status === "delivered";
    });
  });

  it("fails a delivery after its last attempt: an error status, then no answer in time", async () => {
    const namespace = await seedNamespace(undefined, { baseUrl: server.url });
    const token = namespace.owner.tenantToken;
    const hook = await createHook(token, server.url);
    receiver.answerNext({ status: 500, body: "boom" }, "hold");
    await authDevice(agentBody(namespace.tenantId), { baseUrl: server.url });
    let delivery: Delivery | undefined;
    await waitFor(
      "the delivery failed",
      async () => {
        const listed = await call("GET", `/api/webhooks/${hook.id}/deliveries?status=failed`, {
          baseUrl: server.url,
          token,
        });
        delivery = (listed.body as Delivery[])[0];
        return delivery !== undefined;
      },
      30,
    );
    expect(hook.requests()).toHaveLength(2);
    expect(delivery).toMatchObject({ attempts: 2, response_status: null, error: "no answer within 1 s" });
    const webhook = await call("GET", `/api/webhooks/${hook.id}`, { baseUrl: server.url, token });
    expect(webhook.body.last_delivery).toMatchObject({ status: "failed" });
  });
});
