import { createServer, type RequestListener, type Server } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { writeErrorAnswer } from "./answer";
import { directRoute, serveDirect } from "./direct";
import { defineOperation } from "./operation";

const failingRoute = directRoute({
  operation: defineOperation({
    id: "failingCall",
    method: "POST",
    path: "/api/failing",
    summary: "A call whose service fails",
    tag: "test",
    access: { kind: "public" },
    body: z.object({}),
  }),
  readBody: () => ({}),
  handle: async () => {
    throw new Error("the database went away");
  },
});

let server: Server | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise((resolve) => server?.close(resolve));
});

async function listen(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

/** The JSON lines lib/log.ts writes to stderr from now on, kept from the terminal. */
function stderrLines(): () => Record<string, unknown>[] {
  const written: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  return () => written.flatMap((text) => text.split("\n").filter(Boolean)).map((line) => JSON.parse(line));
}

describe("the fast path's failures", () => {
  it("answers a failing handler with 500 {message, request_id} and logs the error under that id", async () => {
    const logged = stderrLines();
    const url = await listen((request, response) => serveDirect(failingRoute, request, response));
    const response = await fetch(`${url}/api/failing?x=1`, { method: "POST", body: "{}" });
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ message: "internal server error", request_id: expect.any(String) });
    expect(logged()).toContainEqual(
      expect.objectContaining({
        level: "error",
        requestId: body.request_id,
        method: "POST",
        path: "/api/failing",
        error: expect.stringContaining("the database went away"),
      }),
    );
  });

  it("cuts the connection on a failure after the answer began, and logs it under a request id", async () => {
    const logged = stderrLines();
    const url = await listen((request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write("[");
      writeErrorAnswer(response, request, new Error("the answer broke off"));
    });
    await expect(fetch(`${url}/api/broken`).then((response) => response.text())).rejects.toThrow();
    expect(logged()).toContainEqual(
      expect.objectContaining({
        requestId: expect.any(String),
        path: "/api/broken",
        error: expect.stringContaining("the answer broke off"),
      }),
    );
  });
});
