import { and, asc, eq } from "drizzle-orm";
import { devices } from "@/models/devices";
import { type FirewallAction, type FirewallRuleRow, firewallRules } from "@/models/firewall-rules";
import type { PublicKeyFilter } from "@/models/public-keys";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { notFound } from "../errors";
import { paged } from "../results";
import type { Pagination } from "../schemas/common";
import { audited } from "./audit";
import { type FilteredDevice, filterAdmits, filterTagEditor } from "./device-filter";
import { assertUserRegexes, searchUserRegex } from "./regex";

const describe = (row: FirewallRuleRow) => ({
  id: String(row.id),
  tenant_id: row.tenantId,
  action: row.action,
  active: row.active,
  filter: row.filter,
  priority: row.priority,
  source_ip: row.sourceIp,
  username: row.username,
});

type FirewallRuleInput = {
  action: FirewallAction;
  active: boolean;
  filter: PublicKeyFilter;
  priority: number;
  source_ip: string;
  username: string;
};

function columnsOf(input: FirewallRuleInput) {
  const { filter } = input;
  assertUserRegexes({
    source_ip: input.source_ip,
    username: input.username,
    ...("hostname" in filter ? { "filter.hostname": filter.hostname } : {}),
  });
  return {
    action: input.action,
    active: input.active,
    filter,
    priority: input.priority,
    sourceIp: input.source_ip,
    username: input.username,
  };
}

const ofRule = (scope: Scope, id: number) => and(eq(firewallRules.tenantId, scope.tenantId), eq(firewallRules.id, id));

const auditOfRule = (rule: ReturnType<typeof describe>) => ({
  target: { type: "firewall_rule", id: rule.id },
  details: { ...rule, tenant_id: undefined },
});

export const createFirewallRule = (db: Executor, scope: Scope, input: FirewallRuleInput) => {
  const columns = columnsOf(input);
  return audited(
    db,
    scope,
    "firewall_rule.create",
    async (tx) => {
      const [row] = await tx
        .insert(firewallRules)
        .values({ tenantId: scope.tenantId, ...columns })
        .returning();
      if (!row) throw new Error("insert returned no row");
      return describe(row);
    },
    auditOfRule,
  );
};

/** The namespace's rules in the order they are evaluated. */
export async function listFirewallRules(db: Executor, scope: Scope, query: Pagination) {
  const where = eq(firewallRules.tenantId, scope.tenantId);
  const { rows, total } = await readPage(
    db,
    { from: firewallRules, where },
    db.select().from(firewallRules).where(where).orderBy(asc(firewallRules.priority), asc(firewallRules.id)).$dynamic(),
    query,
  );
  return paged(rows.map(describe), total);
}

export async function getFirewallRule(db: Executor, scope: Scope, id: number) {
  const [row] = await db.select().from(firewallRules).where(ofRule(scope, id));
  if (!row) throw notFound("firewall rule");
  return describe(row);
}

export const updateFirewallRule = (db: Executor, scope: Scope, id: number, input: FirewallRuleInput) => {
  const columns = columnsOf(input);
  return audited(
    db,
    scope,
    "firewall_rule.update",
    async (tx) => {
      const [row] = await tx.update(firewallRules).set(columns).where(ofRule(scope, id)).returning();
      if (!row) throw notFound("firewall rule");
      return describe(row);
    },
    auditOfRule,
  );
};

export async function deleteFirewallRule(db: Executor, scope: Scope, id: number) {
  await audited(
    db,
    scope,
    "firewall_rule.delete",
    async (tx) => {
      const [row] = await tx.delete(firewallRules).where(ofRule(scope, id)).returning();
      if (!row) throw notFound("firewall rule");
      return describe(row);
    },
    auditOfRule,
  );
}

const ruleFilter = filterTagEditor({
  what: "firewall rule",
  auditTarget: "firewall_rule",
  lock: (tx, scope, id: number) =>
    tx.select({ filter: firewallRules.filter }).from(firewallRules).where(ofRule(scope, id)).for("update"),
  write: (db, scope, id, filter) => db.update(firewallRules).set({ filter }).where(ofRule(scope, id)).returning(),
});

export const addFirewallRuleTag = async (db: Executor, scope: Scope, id: number, tag: string) =>
  describe(await ruleFilter.addTag(db, scope, id, tag));

export const removeFirewallRuleTag = async (db: Executor, scope: Scope, id: number, tag: string) =>
  describe(await ruleFilter.removeTag(db, scope, id, tag));

/** Makes the rule's filter exactly these tags, replacing a hostname filter too. */
export const updateFirewallRuleTags = async (db: Executor, scope: Scope, id: number, tags: string[]) =>
  describe(await ruleFilter.replaceTags(db, scope, id, tags));

export type EvaluatedRule = Pick<
  FirewallRuleRow,
  "id" | "action" | "active" | "priority" | "sourceIp" | "username" | "filter"
>;
export type Connection = { sourceIp: string; username: string; device: FilteredDevice };

/**
 * Whether a rule applies to a connection: its source_ip regex matches the address, its username
 * regex the login name, and its filter admits the device. A stored pattern that no longer
 * compiles fails closed: a deny rule applies, an allow rule does not.
 */
function ruleApplies(rule: EvaluatedRule, connection: Connection): boolean {
  const checks = [
    searchUserRegex(rule.sourceIp, connection.sourceIp),
    searchUserRegex(rule.username, connection.username),
    filterAdmits(rule.filter, connection.device),
  ];
  if (checks.includes(false)) return false;
  return checks.includes(undefined) ? rule.action === "deny" : true;
}

/** What decides a connection: the action, and the rule that took it (none: no rule applied). */
export type FirewallDecision = { action: FirewallAction; rule?: EvaluatedRule };

/**
 * The gateway's decision for a connection: active rules by priority (lowest number first, ties
 * by id); the first that applies decides; with none, the connection is allowed.
 */
export function evaluateFirewall(rules: EvaluatedRule[], connection: Connection): FirewallDecision {
  const ordered = rules.filter((rule) => rule.active).sort((a, b) => a.priority - b.priority || a.id - b.id);
  const rule = ordered.find((candidate) => ruleApplies(candidate, connection));
  return rule ? { action: rule.action, rule } : { action: "allow" };
}

/** The decision of the namespace's active rules for a connection: the gateway's and the tester's. */
export async function decideConnection(db: Executor, tenantId: string, connection: Connection) {
  const rules = await db
    .select()
    .from(firewallRules)
    .where(and(eq(firewallRules.tenantId, tenantId), eq(firewallRules.active, true)));
  return evaluateFirewall(rules, connection);
}

/**
 * The rule tester: what the gateway would decide for `username` from `source_ip` on a device of
 * the namespace (404 for a device it does not have), and which rule decided.
 */
export async function testFirewall(
  db: Executor,
  scope: Scope,
  input: { username: string; source_ip: string; device_uid: string },
) {
  const [device] = await db
    .select({ name: devices.name, tags: devices.tags })
    .from(devices)
    .where(and(eq(devices.tenantId, scope.tenantId), eq(devices.uid, input.device_uid)));
  if (!device) throw notFound("device");
  const { action, rule } = await decideConnection(db, scope.tenantId, {
    sourceIp: input.source_ip,
    username: input.username,
    device,
  });
  return rule ? { action, rule: { id: String(rule.id), priority: rule.priority } } : { action };
}
