import { describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";

const zero = { registered_devices: 0, online_devices: 0, pending_devices: 0, rejected_devices: 0, active_sessions: 0 };

describe("GET /api/stats", () => {
  it("answers zeros for a new namespace", async () => {
    const namespace = await seedNamespace();
    const response = await call("GET", "/api/stats", { token: namespace.owner.tenantToken });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(zero);
  });

  it("counts the namespace's devices by status, online among the accepted ones, and follows changes", async () => {
    const [namespace, other] = await Promise.all([seedNamespace(), seedNamespace()]);
    await seedDevice(namespace, { status: "accept" });
    await seedDevice(namespace, { status: "accept" });
    await seedDevice(namespace, { status: "accept", isOnline: false });
    const pending = await seedDevice(namespace);
    await seedDevice(namespace, { status: "reject" });
    await seedDevice(namespace, { status: "reject", isOnline: false });
    await seedDevice(namespace, { status: "unused" });
    // Another namespace's devices never count.
    await seedDevice(other, { status: "accept" });
    await seedDevice(other);

    const stats = () => call("GET", "/api/stats", { token: namespace.owner.tenantToken });
    expect((await stats()).body).toEqual({
      registered_devices: 3,
      online_devices: 2,
      pending_devices: 1,
      rejected_devices: 2,
      active_sessions: 0,
    });

    const accepted = await call("PATCH", `/api/devices/${pending.uid}/accept`, { token: namespace.owner.tenantToken });
    expect(accepted.status).toBe(200);
    expect((await stats()).body).toMatchObject({ registered_devices: 4, online_devices: 3, pending_devices: 0 });
  });

  it("answers an observer's API key with the key's namespace", async () => {
    const namespace = await seedNamespace();
    await seedDevice(namespace);
    const response = await call("GET", "/api/stats", { apiKey: await seedApiKey(namespace, "observer") });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...zero, pending_devices: 1 });
  });
});
