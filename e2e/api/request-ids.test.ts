import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { agentBody, authDevice } from "@/testing/agents";
import { call } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { type SeededDevice, seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { waitFor } from "@/testing/wait";

// Every 5xx carries a request id that the server's log holds with the error. A server of its
// own, whose devices table is taken away while it runs: what reads it fails.

let server: OwnServer;
let namespace: SeededNamespace;
let device: SeededDevice;
let terminalToken: string;

beforeAll(async () => {
  server = await startOwnServer();
  const baseUrl = server.url;
  namespace = await seedNamespace(undefined, { baseUrl });
  device = await seedDevice(namespace, { baseUrl, status: "accept" });
  const ticket = await call("POST", "/ws/ssh", {
    baseUrl,
    token: namespace.owner.tenantToken,
    body: { device: device.uid, username: "root", password: "unused" },
  });
  expect(ticket.status, ticket.text).toBe(200);
  terminalToken = ticket.body.token;
  // The ticket outlives a restart of the embedded database's server (testing/own-server.ts).
  await server.query(
    sql`alter table devices rename to devices_gone`,
    sql`update terminal_tickets set expires_at = now() + interval '1 hour'`,
  );
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** The status and JSON body with which the server refuses a WebSocket upgrade. */
function refusedUpgrade(path: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}${path}`, { headers });
    socket.once("unexpected-response", (request, response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk;
      });
      response.once("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
      });
    });
    socket.once("open", () => {
      socket.close();
      reject(new Error(`the upgrade to ${path} succeeded`));
    });
    socket.once("error", reject);
  });
}

/** The request id of a 5xx answer, once the server's log holds an error under it. */
async function loggedRequestId(answer: { status: number; body: unknown }) {
  expect(answer.status).toBe(500);
  expect(answer.body).toEqual({ message: "internal server error", request_id: expect.any(String) });
  const requestId = (answer.body as { request_id: string }).request_id;
  await waitFor(`the log to hold request ${requestId}`, () =>
    server
      .output()
      .split("\n")
      .some((line) => line.includes(`"requestId":"${requestId}"`) && line.includes('"level":"error"')),
  );
  return requestId;
}

describe("a 5xx", () => {
  it("on the agents' fast path", async () => {
    const response = await authDevice(agentBody(namespace.tenantId), { baseUrl: server.url });
    await loggedRequestId(response);
  });

  it("on the tunnel endpoint's upgrade", async () => {
    await loggedRequestId(await refusedUpgrade("/agent/tunnel", { authorization: `Bearer ${device.token}` }));
  });

  it("on the browser terminal's upgrade, when the login fails rather than being refused", async () => {
    // PUBLIC_URL is unset: the terminal's origin is http://localhost:PORT.
    const origin = `http://localhost:${new URL(server.url).port}`;
    const query = `token=${encodeURIComponent(terminalToken)}&cols=80&rows=24`;
    await loggedRequestId(await refusedUpgrade(`/ws/ssh?${query}`, { origin }));
  });
});
