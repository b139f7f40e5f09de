import { expect } from "vitest";
import { agentBody } from "@/testing/agents";
import { call } from "@/testing/client";
import { seedNamespace } from "@/testing/seeds/namespaces";
import type { Case, Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);

/** Bad agent calls: 400 naming the field, and no device is registered. */
function authDeviceTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return {
        credentials: {},
        values: { tenant: namespace.tenantId },
        verify: async () => {
          const listed = await call("GET", "/api/devices", { token: namespace.owner.tenantToken });
          expect(listed.headers.get("x-total-count")).toBe("0");
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["info", "hostname", "public_key", "tenant_id"]],
      ["info that is a string", (v) => ({ body: { ...agentBody(v.tenant ?? ""), info: "debian" } }), ["info"]],
      ["a numeric hostname", (v) => ({ body: { ...agentBody(v.tenant ?? ""), hostname: 42 } }), ["hostname"]],
      [
        "a 64-character hostname",
        (v) => ({ body: { ...agentBody(v.tenant ?? ""), hostname: longText(64) } }),
        ["hostname"],
      ],
      ["a hostname with a dot", (v) => ({ body: { ...agentBody(v.tenant ?? ""), hostname: "a.b" } }), ["hostname"]],
      [
        "a MAC that is a number",
        (v) => ({ body: { ...agentBody(v.tenant ?? ""), identity: { mac: 1 } } }),
        ["identity.mac"],
      ],
      [
        "a public key over 16 KiB",
        (v) => ({ body: { ...agentBody(v.tenant ?? ""), public_key: longText(16_385) } }),
        ["public_key"],
      ],
      ["sessions that are a string", (v) => ({ body: { ...agentBody(v.tenant ?? ""), sessions: "x" } }), ["sessions"]],
      [
        "257 sessions",
        (v) => ({ body: { ...agentBody(v.tenant ?? ""), sessions: Array(257).fill("0".repeat(64)) } }),
        ["sessions"],
      ],
      [
        "a tenant id that is a number",
        (v) => ({ body: { ...agentBody(v.tenant ?? ""), tenant_id: 7 } }),
        ["tenant_id"],
      ],
    ] satisfies Case[],
  };
}

export const tables: Record<string, () => Table> = {
  authDevice: authDeviceTable,
  authDeviceAlias: authDeviceTable,
};
