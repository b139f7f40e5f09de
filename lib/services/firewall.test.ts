import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { firewallRules } from "@/models/firewall-rules";
import { withTestDatabase } from "@/testing/database";
import { insertDevices } from "@/testing/rows/devices";
import { seedScope } from "@/testing/rows/namespaces";
import type { Scope } from "../auth/credentials";
import type { Db } from "../db";
import { ApiError } from "../errors";
import { type Connection, type EvaluatedRule, evaluateFirewall, testFirewall } from "./firewall";

let nextId = 1;
/** A rule that applies to everything unless the overrides narrow it. */
const rule = (overrides: Partial<EvaluatedRule> = {}): EvaluatedRule => ({
  id: nextId++,
  action: "deny",
  active: true,
  priority: 1,
  sourceIp: ".*",
  username: ".*",
  filter: { hostname: ".*" },
  ...overrides,
});

const connection: Connection = {
  sourceIp: "203.0.113.7",
  username: "root",
  device: { name: "web-01", tags: ["prod", "eu"] },
};

type Case = [label: string, rules: EvaluatedRule[], expected: "allow" | "deny", target?: Partial<Connection>];

const cases: Case[] = [
  ["no rules: allow", [], "allow"],
  ["one deny that applies: deny", [rule()], "deny"],
  ["one allow that applies: allow", [rule({ action: "allow" })], "allow"],
  ["an inactive deny is skipped", [rule({ active: false })], "allow"],
  [
    "the lowest priority number decides (allow before deny)",
    [rule({ priority: 2, action: "deny" }), rule({ priority: 1, action: "allow" })],
    "allow",
  ],
  [
    "the lowest priority number decides (deny before allow)",
    [rule({ priority: 5, action: "allow" }), rule({ priority: 0, action: "deny" })],
    "deny",
  ],
  [
    "equal priorities: the lower id decides, whatever the input order",
    [rule({ id: 20, action: "allow" }), rule({ id: 10, action: "deny" })],
    "deny",
  ],
  [
    "an inactive rule ahead does not shadow the next",
    [rule({ priority: 0, action: "allow", active: false }), rule({ priority: 1, action: "deny" })],
    "deny",
  ],
  ["source_ip that does not match: skipped", [rule({ sourceIp: "^10\\." })], "allow"],
  ["source_ip that matches: applies", [rule({ sourceIp: "^203\\.0\\.113\\.[0-9]+$" })], "deny"],
  ["username that does not match: skipped", [rule({ username: "^admin$" })], "allow"],
  ["username that matches: applies", [rule({ username: "^(root|admin)$" })], "deny"],
  ["username is a search: 'oo' matches 'root'", [rule({ username: "oo" })], "deny"],
  ["anchored username does not match a longer name", [rule({ username: "^root$" })], "allow", { username: "root2" }],
  ["hostname filter that does not match: skipped", [rule({ filter: { hostname: "^db-" } })], "allow"],
  ["hostname filter that matches: applies", [rule({ filter: { hostname: "^web-[0-9]+$" } })], "deny"],
  ["tags filter with one of the device's tags: applies", [rule({ filter: { tags: ["staging", "eu"] } })], "deny"],
  ["tags filter with none of the device's tags: skipped", [rule({ filter: { tags: ["staging", "us"] } })], "allow"],
  [
    "tags filter on an untagged device: skipped",
    [rule({ filter: { tags: ["prod"] } })],
    "allow",
    {
      device: { name: "web-01", tags: [] },
    },
  ],
  [
    "every part must match: right IP and user, wrong device",
    [rule({ sourceIp: "^203\\.", username: "^root$", filter: { tags: ["us"] } })],
    "allow",
  ],
  [
    "a skipped rule lets a later one decide",
    [rule({ priority: 0, action: "allow", username: "^admin$" }), rule({ priority: 1, action: "deny" })],
    "deny",
  ],
  [
    "a typical policy: allow the office, deny everyone else",
    [rule({ priority: 0, action: "allow", sourceIp: "^198\\.51\\.100\\." }), rule({ priority: 10, action: "deny" })],
    "allow",
    { sourceIp: "198.51.100.23" },
  ],
  [
    "the same policy for a stranger",
    [rule({ priority: 0, action: "allow", sourceIp: "^198\\.51\\.100\\." }), rule({ priority: 10, action: "deny" })],
    "deny",
  ],
  ["a stored deny whose pattern no longer compiles fails closed: applies", [rule({ username: "(a)\\1" })], "deny"],
  [
    "a stored allow whose pattern no longer compiles fails closed: skipped",
    [rule({ action: "allow", username: "(?=x)" }), rule({ priority: 2 })],
    "deny",
  ],
  [
    "a broken pattern does not make a rule apply when another part does not match",
    [rule({ username: "(a)\\1", sourceIp: "^10\\." })],
    "allow",
  ],
];

describe("evaluateFirewall", () => {
  it.each(cases)("%s", (_label, rules, expected, target = {}) => {
    expect(evaluateFirewall(rules, { ...connection, ...target }).action).toBe(expected);
  });

  it("names the rule that decided, and none when no rule applied", () => {
    const skipped = rule({ priority: 0, username: "^admin$" });
    const deciding = rule({ priority: 4, action: "allow" });
    expect(evaluateFirewall([rule({ priority: 9 }), deciding, skipped], connection)).toEqual({
      action: "allow",
      rule: deciding,
    });
    expect(evaluateFirewall([skipped], connection)).toEqual({ action: "allow" });
  });

  it("does not reorder the caller's array", () => {
    const rules = [rule({ priority: 3 }), rule({ priority: 1 })];
    const ids = rules.map((item) => item.id);
    evaluateFirewall(rules, connection);
    expect(rules.map((item) => item.id)).toEqual(ids);
  });

  it("evaluates a catastrophic-backtracking pattern on a long username fast", () => {
    const started = performance.now();
    const decision = evaluateFirewall([rule({ username: "^(a+)+$" })], {
      ...connection,
      username: `${"a".repeat(50_000)}!`,
    });
    expect(decision).toEqual({ action: "allow" });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("testFirewall: the gateway's decision for a device of the namespace", () => {
  let db: Db;
  withTestDatabase((opened) => {
    db = opened;
  });
  let scope: Scope;
  let web: string;
  let database: string;
  let denyId: number;
  beforeAll(async () => {
    scope = await seedScope(db);
    [web = "", database = ""] = await insertDevices(db, scope, [
      { name: "web-01", tags: ["prod"], status: "accepted" },
      { name: "db-01", tags: [], status: "accepted" },
    ]);
    const rows = await db
      .insert(firewallRules)
      .values(
        [
          { action: "deny" as const, priority: 7, sourceIp: "^10\\.", username: "^root$", filter: { tags: ["prod"] } },
          // Inactive: the gateway skips it, so the tester does too.
          {
            action: "deny" as const,
            priority: 0,
            sourceIp: ".*",
            username: ".*",
            filter: { hostname: ".*" },
            active: false,
          },
        ].map((row) => ({ active: true, ...row, tenantId: scope.tenantId })),
      )
      .returning({ id: firewallRules.id });
    denyId = rows[0]?.id ?? 0;
  });

  it("names the rule that denies, with its priority", async () => {
    const answer = await testFirewall(db, scope, { username: "root", source_ip: "10.0.0.5", device_uid: web });
    expect(answer).toEqual({ action: "deny", rule: { id: String(denyId), priority: 7 } });
  });

  it.each([
    ["another user", { username: "admin", source_ip: "10.0.0.5" }],
    ["another address", { username: "root", source_ip: "192.0.2.1" }],
  ])("allows %s: no rule applied", async (_label, input) => {
    expect(await testFirewall(db, scope, { ...input, device_uid: web })).toEqual({ action: "allow" });
  });

  it("allows a device the rule's filter does not admit", async () => {
    const answer = await testFirewall(db, scope, { username: "root", source_ip: "10.0.0.5", device_uid: database });
    expect(answer).toEqual({ action: "allow" });
  });

  it("answers 404 for a device of another namespace", async () => {
    const other = await seedScope(db);
    const [foreign = ""] = await insertDevices(db, other, [{ name: "web-01", tags: ["prod"], status: "accepted" }]);
    for (const uid of [foreign, randomUUID()]) {
      const refused = testFirewall(db, scope, { username: "root", source_ip: "10.0.0.5", device_uid: uid });
      await expect(refused).rejects.toBeInstanceOf(ApiError);
      await expect(refused).rejects.toMatchObject({ status: 404 });
    }
  });
});
