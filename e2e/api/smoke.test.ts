import { describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { seedApiKey, seedNamespace } from "@/testing/seeds/namespaces";

describe("service", () => {
  it("answers /info and the health check", async () => {
    const info = await call("GET", "/info");
    expect(info.status).toBe(200);
    // The test server's gateway listens on a port the system chose: /info tells that one.
    expect(Number(info.body.endpoints.ssh.split(":").pop())).toBeGreaterThan(0);
    expect((await call("GET", "/api/healthcheck")).body).toEqual({ status: "ok" });
  });

  it("lists namespaces with an API key", async () => {
    const namespace = await seedNamespace();
    const key = await seedApiKey(namespace, "observer");
    const list = await call("GET", "/api/namespaces", { apiKey: key });
    expect(list.status).toBe(200);
    expect(list.headers.get("x-total-count")).toBe("1");
    expect(list.body.map((item: { tenant_id: string }) => item.tenant_id)).toEqual([namespace.tenantId]);
  });
});
