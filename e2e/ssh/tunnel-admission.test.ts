import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { registerAgent, startAgent } from "@/testing/agents";
import { call } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { isRoot } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

/**
 * Tunnel admission under load: a server that may set up one tunnel at a time holds the next
 * upgrades in line (those with a device token: one without is refused at once), answers those
 * held 15 s 429 with Retry-After and a JSON message, starts a held one as soon as the place
 * frees, and a real agent refused so comes back after the wait and gets its tunnel.
 */

/** The answer to a tunnel upgrade with `token`: 101 when the server switches protocols (the connection is then closed). */
function upgradeAnswer(baseUrl: string, token: string) {
  return new Promise<{ status: number; retryAfter?: string; body: { message?: string } }>((resolve, reject) => {
    const sent = request(`${baseUrl}/agent/tunnel`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": Buffer.alloc(16, 1).toString("base64"),
        authorization: `Bearer ${token}`,
      },
    });
    sent.on("upgrade", (_response, socket) => {
      socket.destroy();
      resolve({ status: 101, body: {} });
    });
    sent.on("response", (response) => {
      let text = "";
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers["retry-after"],
          body: JSON.parse(text),
        }),
      );
    });
    sent.on("error", reject);
    sent.end();
  });
}

describe.skipIf(!isRoot)("tunnel admission (needs root: the agent runs as root)", () => {
  let server: OwnServer;
  let namespace: SeededNamespace;

  beforeAll(async () => {
    server = await startOwnServer({ TUNNEL_HANDSHAKES_MAX: "1" });
    namespace = await seedNamespace(undefined, { baseUrl: server.url });
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** An accepted device's token, as its agent holds it. */
  async function acceptedDeviceToken() {
    const device = await registerAgent(namespace.tenantId, {}, { baseUrl: server.url });
    const accepted = await call("PATCH", `/api/devices/${device.uid}/accept`, {
      token: namespace.owner.tenantToken,
      baseUrl: server.url,
    });
    expect(accepted.status).toBe(200);
    return device.token;
  }

  it("holds upgrades in line while the place is taken, answers 429 after 15 s, and the refused agent comes back for its tunnel", async () => {
    // A tunnel whose SSH handshake never starts holds the one place until it closes.
    const holder = new WebSocket(`${server.url.replace(/^http/, "ws")}/agent/tunnel`, {
      headers: { authorization: `Bearer ${await acceptedDeviceToken()}` },
    });
    await new Promise((resolve, reject) => {
      holder.once("open", resolve);
      holder.once("error", reject);
    });
    try {
      const heldAt = Date.now();
      const held = upgradeAnswer(server.url, await acceptedDeviceToken());
      // Without a device token an upgrade takes no place in the line: refused at once.
      expect((await upgradeAnswer(server.url, "not-a-device-token")).status).toBe(401);
      const agent = startAgent(server.url, namespace.tenantId);
      try {
        const refused = await held;
        expect(refused.status).toBe(429);
        expect(Date.now() - heldAt).toBeGreaterThanOrEqual(14_000);
        expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(refused.body.message).toMatch(/too many tunnels/);
        await waitFor(
          () => `the agent refused with 429:\n${agent.output()}`,
          () => agent.output().includes("(429)"),
        );

        // Taken from the line as soon as the place frees (then closed, giving the place to the agent).
        const next = upgradeAnswer(server.url, await acceptedDeviceToken());
        await new Promise((resolve) => setTimeout(resolve, 500));
        holder.close();
        expect((await next).status).toBe(101);
        await agent.tunnelUp();
      } finally {
        await agent.stop();
      }
    } finally {
      holder.terminate();
    }
  });
});
