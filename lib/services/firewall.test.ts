import { describe, expect, it } from "vitest";
import { type Connection, type EvaluatedRule, evaluateFirewall } from "./firewall";

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
    expect(evaluateFirewall(rules, { ...connection, ...target })).toBe(expected);
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
    expect(decision).toBe("allow");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
