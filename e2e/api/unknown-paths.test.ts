import { describe, expect, inject, it } from "vitest";
import { call } from "@/testing/client";

const raw = (method: string, path: string) =>
  fetch(`${inject("baseUrl")}${path}`, { method, redirect: "manual" }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  }));

describe("requests no operation takes", () => {
  it("answer 404 with a JSON message on an unknown /api path", async () => {
    for (const path of ["/api/no-such-thing", "/api/devices/a/b/c/d", "/api", "/api/no-such-thing?page=1"]) {
      const response = await call("GET", path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toMatch(/^application\/json/);
      expect(response.body, path).toEqual({ message: expect.any(String) });
    }
    expect((await call("POST", "/api/no-such-thing", { body: {} })).status).toBe(404);
  });

  it("answer 405 with a JSON message and Allow on a method the path does not have", async () => {
    const deleted = await call("DELETE", "/api/healthcheck");
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(deleted.body).toEqual({ message: expect.any(String) });
    // The agents' operations, served without Next.js, are known paths too.
    const heartbeat = await call("PUT", "/api/auth/device", { body: {} });
    expect(heartbeat.status).toBe(405);
    expect(heartbeat.headers.get("allow")).toBe("POST, OPTIONS");
    expect(heartbeat.body).toEqual({ message: expect.any(String) });
  });

  it("answer HEAD like GET where GET is declared, and with only the status elsewhere", async () => {
    const health = await raw("HEAD", "/api/healthcheck");
    expect(health.status).toBe(200);
    expect(health.text).toBe("");
    expect(await raw("HEAD", "/api/no-such-thing")).toMatchObject({ status: 404, text: "" });
    const login = await raw("HEAD", "/api/login");
    expect(login).toMatchObject({ status: 405, text: "" });
    expect(login.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("answer OPTIONS with 204 and Allow on a known path, 404 on an unknown one", async () => {
    const options = await raw("OPTIONS", "/api/devices");
    expect(options).toMatchObject({ status: 204, text: "" });
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await raw("OPTIONS", "/api/no-such-thing")).status).toBe(404);
  });

  it("leave the rest to Next.js: declared operations, trailing-slash redirects, pages", async () => {
    expect(await call("GET", "/api/healthcheck")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect((await raw("GET", "/api/healthcheck/")).status).toBe(308);
    const page = await raw("GET", "/no-such-page");
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });
});
