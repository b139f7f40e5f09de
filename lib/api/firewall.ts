import { defineOperation } from "../http/operation";
import {
  firewallRuleBody,
  firewallRuleObject,
  firewallRuleParams,
  firewallTestObject,
  listFirewallRulesQuery,
  testFirewallBody,
} from "../schemas/firewall";
import { tagBody, tagsBody } from "../schemas/public-keys";

const tag = "firewall";
const read = { kind: "tenant", permission: "firewall.read" } as const;
const manage = { kind: "tenant", permission: "firewall.manage" } as const;
const cloud = { isCloudOnly: true } as const;

export const createFirewallRule = defineOperation({
  id: "createFirewallRule",
  method: "POST",
  path: "/api/firewall/rules",
  tag,
  summary: "Create a firewall rule",
  access: manage,
  body: firewallRuleBody,
  response: firewallRuleObject,
  ...cloud,
});

export const listFirewallRules = defineOperation({
  id: "listFirewallRules",
  method: "GET",
  path: "/api/firewall/rules",
  tag,
  summary: "The namespace's firewall rules in evaluation order (priority, then id)",
  access: read,
  query: listFirewallRulesQuery,
  response: firewallRuleObject,
  isList: true,
  ...cloud,
});

export const getFirewallRule = defineOperation({
  id: "getFirewallRule",
  method: "GET",
  path: "/api/firewall/rules/{id}",
  tag,
  summary: "Get a firewall rule",
  access: read,
  params: firewallRuleParams,
  response: firewallRuleObject,
  errors: { 404: "no such rule" },
  ...cloud,
});

export const updateFirewallRule = defineOperation({
  id: "updateFirewallRule",
  method: "PUT",
  path: "/api/firewall/rules/{id}",
  tag,
  summary: "Replace a firewall rule",
  access: manage,
  params: firewallRuleParams,
  body: firewallRuleBody,
  response: firewallRuleObject,
  errors: { 404: "no such rule" },
  ...cloud,
});

export const deleteFirewallRule = defineOperation({
  id: "deleteFirewallRule",
  method: "DELETE",
  path: "/api/firewall/rules/{id}",
  tag,
  summary: "Delete a firewall rule",
  access: manage,
  params: firewallRuleParams,
  errors: { 404: "no such rule" },
  ...cloud,
});

export const addFirewallRuleTag = defineOperation({
  id: "addFirewallRuleTag",
  method: "POST",
  path: "/api/firewall/rules/{id}/tags",
  tag,
  summary: "Add a tag to a rule's tags filter",
  access: manage,
  params: firewallRuleParams,
  body: tagBody,
  response: firewallRuleObject,
  errors: { 404: "no such rule", 409: "hostname filter, tag already there, or 3 tags already" },
  ...cloud,
});

export const removeFirewallRuleTag = defineOperation({
  id: "removeFirewallRuleTag",
  method: "DELETE",
  path: "/api/firewall/rules/{id}/tags",
  tag,
  summary: "Remove a tag (given in the body) from a rule's tags filter",
  access: manage,
  params: firewallRuleParams,
  body: tagBody,
  response: firewallRuleObject,
  errors: { 404: "no such rule or tag", 409: "the last tag" },
  ...cloud,
});

export const updateFirewallRuleTags = defineOperation({
  id: "updateFirewallRuleTags",
  method: "PUT",
  path: "/api/firewall/rules/{id}/tags",
  tag,
  summary: "Make a rule's filter exactly these tags (replaces a hostname filter)",
  access: manage,
  params: firewallRuleParams,
  body: tagsBody,
  response: firewallRuleObject,
  errors: { 404: "no such rule" },
  ...cloud,
});

export const testFirewall = defineOperation({
  id: "testFirewall",
  method: "POST",
  path: "/api/firewall/rules/evaluate",
  tag,
  summary:
    "Would the gateway let this user in from this address to this device? The decision of the active rules, and the rule that took it (none: allowed, no rule matched)",
  access: read,
  body: testFirewallBody,
  response: firewallTestObject,
  errors: { 404: "no such device in the namespace" },
  ...cloud,
});

export const firewallOperations = [
  createFirewallRule,
  listFirewallRules,
  getFirewallRule,
  updateFirewallRule,
  deleteFirewallRule,
  addFirewallRuleTag,
  removeFirewallRuleTag,
  updateFirewallRuleTags,
  testFirewall,
];
