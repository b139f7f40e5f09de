import { type MemberRole, memberRoles } from "@/models/enums";

export { type MemberRole, memberRoles };

const rank: Record<MemberRole, number> = { observer: 1, operator: 2, administrator: 3, owner: 4 };

export const roleRank = (role: MemberRole) => rank[role];
export const lowerRole = (a: MemberRole, b: MemberRole) => (rank[a] <= rank[b] ? a : b);
export const isRoleAbove = (a: MemberRole, b: MemberRole) => rank[a] > rank[b];

/** Every action a namespace member can be allowed to take. */
export const actions = [
  "namespace.read",
  "namespace.update",
  "namespace.delete",
  "member.add",
  "member.update",
  "member.remove",
  "apikey.read",
  "apikey.create",
  "apikey.update",
  "apikey.delete",
  "session-record.read",
  "session-record.update",
  "device.read",
  "device.update",
  "device.status",
  "device.tag",
  "device.delete",
  "device.connect",
  "tag.read",
  "tag.manage",
  "publickey.read",
  "publickey.manage",
  "session.read",
  "session.play",
  "session.close",
  "firewall.read",
  "firewall.manage",
  "connector.read",
  "connector.manage",
  "stats.read",
  "audit.view",
  "webhook.manage",
  "billing.manage",
] as const;
export type Action = (typeof actions)[number];

const observer: Action[] = [
  "namespace.read",
  "apikey.read",
  "session-record.read",
  "device.read",
  "tag.read",
  "publickey.read",
  "session.read",
  "firewall.read",
  "connector.read",
  "stats.read",
];
const operator: Action[] = [
  ...observer,
  "device.update",
  "device.status",
  "device.tag",
  "device.connect",
  "tag.manage",
];
const administrator: Action[] = [
  ...operator,
  "namespace.update",
  "member.add",
  "member.update",
  "member.remove",
  "apikey.create",
  "apikey.update",
  "apikey.delete",
  "session-record.update",
  "device.delete",
  "publickey.manage",
  "session.play",
  "session.close",
  "firewall.manage",
  "audit.view",
  "webhook.manage",
  "connector.manage",
];
const owner: Action[] = [...administrator, "namespace.delete", "billing.manage"];

/** The one permission table: which role may take which action. Routes and the console read it. */
export const permissions: Record<MemberRole, ReadonlySet<Action>> = {
  observer: new Set(observer),
  operator: new Set(operator),
  administrator: new Set(administrator),
  owner: new Set(owner),
};

export const can = (role: MemberRole, action: Action) => permissions[role].has(action);
