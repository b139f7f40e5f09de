import { expect } from "vitest";
import { call } from "../client";
import type { SeededNamespace } from "./namespaces";

/**
 * An active firewall rule of the namespace, first by priority, that denies `username` from any
 * source on any device, made by the owner; `remove` deletes it.
 */
export async function seedDenyingRule(namespace: Pick<SeededNamespace, "owner">, username: string) {
  const owner = { token: namespace.owner.tenantToken };
  const rule = await call("POST", "/api/firewall/rules", {
    ...owner,
    body: { action: "deny", active: true, priority: 1, source_ip: ".*", username, filter: { hostname: ".*" } },
  });
  expect(rule.status, rule.text).toBe(200);
  return { remove: () => call("DELETE", `/api/firewall/rules/${rule.body.id}`, owner) };
}
