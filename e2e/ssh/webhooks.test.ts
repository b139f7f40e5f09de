import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { isRoot, sshPort, sshWithPassword, startDevice, type TestDevice } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from "@/testing/webhook-receiver";

type Delivered = { type: string; data: Record<string, unknown> };

describe.skipIf(!isRoot)("webhooks of a real SSH session (needs root: test account, agent as root)", () => {
  let device: TestDevice | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    device = await startDevice();
  });

  afterAll(async () => {
    await device?.stop();
    await receiver?.close();
  });

  it("sends session.started and session.ended, signed, with the session's login, device and address", async () => {
    if (!device) throw new Error("no device");
    const { namespace, account, deviceUid, target } = device;
    const created = await call("POST", "/api/webhooks", {
      token: namespace.owner.tenantToken,
      body: { url: `${receiver.url}/sessions`, events: ["session.started", "session.ended"] },
    });
    expect(created.status, created.text).toBe(200);
    const secret = created.body.secret as string;
    const result = await sshWithPassword(await sshPort(), account.password, [target, "echo hello"]);
    expect(result.code, result.stderr).toBe(0);
    const bodies = () => receiver.received.map((hook) => verifyHook(secret, hook) as Delivered);
    await waitFor("both session deliveries", () => bodies().length >= 2, 30);
    const started = bodies().find((body) => body.type === "session.started");
    const ended = bodies().find((body) => body.type === "session.ended");
    expect(started?.data).toMatchObject({
      tenant_id: namespace.tenantId,
      username: account.name,
      device_uid: deviceUid,
      ip_address: "127.0.0.1",
    });
    expect(ended?.data).toMatchObject({ uid: started?.data.uid, active: false });
  });
});
