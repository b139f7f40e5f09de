import { describe, expect, it } from "vitest";
import { call } from "@/testing/client";
import { seedNamespace } from "@/testing/seeds/namespaces";

/** `GET /api/containers` as ShellHub's web UI reads it: no connector exists yet, so no container. */

describe("containers", () => {
  it("answers an empty list with the device list's query and paging header", async () => {
    const namespace = await seedNamespace();
    const token = namespace.owner.tenantToken;
    const query = "page=1&per_page=10&status=accepted&sort_by=name&order_by=asc";
    const [containers, devices] = await Promise.all([
      call("GET", `/api/containers?${query}`, { token }),
      call("GET", `/api/devices?${query}`, { token }),
    ]);
    expect(containers.status, containers.text).toBe(200);
    expect(containers.body).toEqual([]);
    expect(containers.headers.get("x-total-count")).toBe("0");
    expect(devices.headers.get("x-total-count")).toBe("0");

    const refused = await call("GET", "/api/containers?per_page=101", { token });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: expect.any(String),
      fields: [expect.objectContaining({ field: "per_page" })],
    });
    expect((await call("GET", "/api/containers", {})).status).toBe(401);
  });
});
