import { describe, expect, it } from "vitest";
import { actions, can, isRoleAbove, lowerRole, type MemberRole, memberRoles, permissions, roleRank } from "./roles";

/** From the least to the most powerful. */
const ascending: MemberRole[] = ["observer", "operator", "administrator", "owner"];

describe("the permission table", () => {
  it("has an entry for every role and only known actions in it", () => {
    expect(Object.keys(permissions).sort()).toEqual([...memberRoles].sort());
    for (const role of memberRoles) {
      for (const action of permissions[role]) expect(actions).toContain(action);
    }
  });

  it.each(ascending.slice(0, -1).map((role, index) => [role, ascending[index + 1] as MemberRole]))(
    "gives %s nothing that %s lacks",
    (lower, higher) => {
      const missing = [...permissions[lower]].filter((action) => !permissions[higher].has(action));
      expect(missing).toEqual([]);
    },
  );

  it("ranks roles in the same order as their permissions", () => {
    for (const [index, role] of ascending.entries()) expect(roleRank(role)).toBe(index + 1);
  });

  it("gives the owner every action", () => {
    expect([...permissions.owner].sort()).toEqual([...actions].sort());
    for (const action of actions) expect(can("owner", action)).toBe(true);
  });

  it("lets only the owner delete the namespace", () => {
    expect(memberRoles.filter((role) => can(role, "namespace.delete"))).toEqual(["owner"]);
  });

  it("lets only the owner manage billing", () => {
    expect(memberRoles.filter((role) => can(role, "billing.manage"))).toEqual(["owner"]);
  });

  it("lets every member read the namespace, its API keys and the session-record setting", () => {
    for (const role of memberRoles) {
      expect(can(role, "namespace.read")).toBe(true);
      expect(can(role, "apikey.read")).toBe(true);
      expect(can(role, "session-record.read")).toBe(true);
    }
  });

  it.each([
    "namespace.update",
    "member.add",
    "member.update",
    "member.remove",
    "apikey.create",
    "apikey.update",
    "apikey.delete",
    "session-record.update",
  ] as const)("keeps %s to administrators and the owner", (action) => {
    expect(memberRoles.filter((role) => can(role, action)).sort()).toEqual(["administrator", "owner"]);
  });

  it("lets an observer only read", () => {
    expect([...permissions.observer].every((action) => action.endsWith(".read"))).toBe(true);
    expect([...permissions.observer].sort()).toEqual(actions.filter((action) => action.endsWith(".read")).sort());
  });
});

describe("role comparisons", () => {
  it.each(ascending.flatMap((a) => ascending.map((b) => [a, b] as const)))("%s vs %s", (a, b) => {
    const indexA = ascending.indexOf(a);
    const indexB = ascending.indexOf(b);
    expect(isRoleAbove(a, b)).toBe(indexA > indexB);
    expect(lowerRole(a, b)).toBe(ascending[Math.min(indexA, indexB)]);
    expect(lowerRole(a, b)).toBe(lowerRole(b, a));
  });

  it("never puts a role above itself", () => {
    for (const role of memberRoles) expect(isRoleAbove(role, role)).toBe(false);
  });
});
