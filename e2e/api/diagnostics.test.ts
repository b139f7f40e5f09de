import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { tunnelPath } from "@/lib/protocol";
import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { seedNamespace } from "@/testing/seeds/namespaces";

/** Opens the tunnel's upgrade with a device token and answers the status the server refused it with. */
function tunnelRefusal(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${inject("baseUrl").replace(/^http/, "ws")}${tunnelPath}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    socket.once("unexpected-response", (request, response) => {
      request.destroy();
      resolve(response.statusCode ?? 0);
    });
    socket.once("open", () => {
      socket.close();
      reject(new Error("the tunnel was admitted"));
    });
    socket.once("error", reject);
  });
}

describe("a device's diagnostics over HTTP", () => {
  it("keep why the server refused the device's tunnel, with the time", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace, { status: "reject" });
    const owner = { token: namespace.owner.tenantToken };
    const before = await call("GET", `/api/devices/${device.uid}/diagnostics`, owner);
    expect(before.body).toMatchObject({ last_tunnel_error: null, clock_skew_ms: null });
    const started = Date.now();
    expect(await tunnelRefusal(device.token)).toBe(403);
    const after = await call("GET", `/api/devices/${device.uid}/diagnostics`, owner);
    expect(after.body.last_tunnel_error).toEqual({
      time: expect.any(String),
      message: "refused: the device is not accepted",
    });
    expect(Date.parse(after.body.last_tunnel_error.time)).toBeGreaterThanOrEqual(started - 1000);
  });
});
