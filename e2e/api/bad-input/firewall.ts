import { expect } from "vitest";
import { call } from "@/testing/client";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { type Case, createTable, type Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);

const validRule = () => ({
  action: "deny",
  active: true,
  priority: 1,
  source_ip: ".*",
  username: ".*",
  filter: { hostname: ".*" },
});

async function rulesOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/firewall/rules?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list firewall rules: ${response.status} ${response.text}`);
  return response.body;
}

const ruleCases: Case[] = [
  ["an empty body", () => ({ body: {} }), ["action", "active", "filter", "priority", "source_ip", "username"]],
  ["an unknown action", () => ({ body: { ...validRule(), action: "block" } }), ["action"]],
  ["an upper-case action", () => ({ body: { ...validRule(), action: "DENY" } }), ["action"]],
  ["active as a string", () => ({ body: { ...validRule(), active: "true" } }), ["active"]],
  ["a negative priority", () => ({ body: { ...validRule(), priority: -1 } }), ["priority"]],
  ["a fractional priority", () => ({ body: { ...validRule(), priority: 1.5 } }), ["priority"]],
  ["a priority as a string", () => ({ body: { ...validRule(), priority: "1" } }), ["priority"]],
  ["a priority beyond 32 bits", () => ({ body: { ...validRule(), priority: 2 ** 31 } }), ["priority"]],
  ["an unbalanced source_ip regex", () => ({ body: { ...validRule(), source_ip: "(10\\." } }), ["source_ip"]],
  ["a username regex with a lookahead", () => ({ body: { ...validRule(), username: "^(?=root)" } }), ["username"]],
  ["a 513-character source_ip", () => ({ body: { ...validRule(), source_ip: longText(513) } }), ["source_ip"]],
  ["an empty username regex", () => ({ body: { ...validRule(), username: "" } }), ["username"]],
  [
    "bad regexes in source_ip, username and hostname",
    () => ({ body: { ...validRule(), source_ip: "(a)\\1", username: "a**+", filter: { hostname: "[" } } }),
    ["filter.hostname", "source_ip", "username"],
  ],
  ["a filter with neither hostname nor tags", () => ({ body: { ...validRule(), filter: {} } }), ["filter"]],
  [
    "a filter with 4 tags",
    () => ({ body: { ...validRule(), filter: { tags: ["aaa", "bbb", "ccc", "ddd"] } } }),
    ["filter.tags"],
  ],
  ["a filter with a bad tag", () => ({ body: { ...validRule(), filter: { tags: ["a:b"] } } }), ["filter.tags.0"]],
];

/** A namespace with one rule (tags filter), for the operations on a rule. */
async function withRule() {
  const namespace = await seedNamespace();
  const created = await call("POST", "/api/firewall/rules", {
    token: namespace.owner.tenantToken,
    body: { ...validRule(), filter: { tags: ["prod", "eu-west"] } },
  });
  expect(created.status, created.text).toBe(200);
  const before = await rulesOf(namespace);
  return {
    credentials: { token: namespace.owner.tenantToken },
    params: { id: created.body.id as string },
    values: {},
    verify: async () => expect(await rulesOf(namespace)).toEqual(before),
  };
}

const tagCases: Case[] = [
  ["an empty body", () => ({ body: {} }), ["tag"]],
  ["a 2-character tag", () => ({ body: { tag: "ab" } }), ["tag"]],
  ["a 256-character tag", () => ({ body: { tag: longText(256) } }), ["tag"]],
  ["a tag with a slash", () => ({ body: { tag: "a/b" } }), ["tag"]],
  ["a numeric tag", () => ({ body: { tag: 7 } }), ["tag"]],
];

export const tables: Record<string, () => Table> = {
  createFirewallRule: createTable(rulesOf, ruleCases),
  updateFirewallRule: () => ({ setup: withRule, cases: ruleCases }),
  addFirewallRuleTag: () => ({ setup: withRule, cases: tagCases }),
  removeFirewallRuleTag: () => ({ setup: withRule, cases: tagCases }),
  updateFirewallRuleTags: () => ({
    setup: withRule,
    cases: [
      ["an empty body", () => ({ body: {} }), ["tags"]],
      ["no tags", () => ({ body: { tags: [] } }), ["tags"]],
      ["4 tags", () => ({ body: { tags: ["aaa", "bbb", "ccc", "ddd"] } }), ["tags"]],
      ["duplicate tags", () => ({ body: { tags: ["aaa", "aaa"] } }), ["tags"]],
      ["a bad tag", () => ({ body: { tags: ["aaa", "x@y"] } }), ["tags.1"]],
    ],
  }),
  testFirewall: () => ({
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["device_uid", "source_ip", "username"]],
      [
        "an address that is not one",
        () => ({ body: { username: "root", source_ip: "10.0.0.256", device_uid: "a".repeat(64) } }),
        ["source_ip"],
      ],
      [
        "a pattern instead of an address",
        () => ({ body: { username: "root", source_ip: "^10\\.", device_uid: "a".repeat(64) } }),
        ["source_ip"],
      ],
      [
        "a device id that is not one",
        () => ({ body: { username: "root", source_ip: "10.0.0.1", device_uid: "web-01" } }),
        ["device_uid"],
      ],
      [
        "an empty username",
        () => ({ body: { username: "", source_ip: "10.0.0.1", device_uid: "a".repeat(64) } }),
        ["username"],
      ],
    ],
  }),
  listFirewallRules: () => ({
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["page=-3", () => ({ query: "page=-3" }), ["page"]],
    ],
  }),
};
