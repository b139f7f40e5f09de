"use client";

import { createContext, type ReactNode, useContext } from "react";
import { type Action, can, type MemberRole } from "@/lib/auth/roles";

export type ConsoleIdentity = {
  user: { id: string; name: string; username: string; email: string };
  /** The namespace the session acts in ("" when the user has none yet). */
  tenant: string;
  role?: MemberRole;
  edition: "cloud" | "community";
  /** `billing`: the cloud edition bills namespaces here (docs/billing.md). */
  info: { version: string; endpoints: { api: string; ssh: string }; billing: boolean };
  /** Accepted devices a namespace holds without a subscription, when billing is on. */
  freePlanDevices: number;
  /** The address people and agents reach the service at (`PUBLIC_URL`). */
  publicUrl: string;
  /** Epoch seconds until which a spent recovery code still lets MFA be turned off. */
  recoveryExpiresAt?: number;
};

const ConsoleContext = createContext<ConsoleIdentity | null>(null);

export function ConsoleIdentityProvider({ identity, children }: { identity: ConsoleIdentity; children: ReactNode }) {
  return <ConsoleContext.Provider value={identity}>{children}</ConsoleContext.Provider>;
}

export function useConsole(): ConsoleIdentity {
  const identity = useContext(ConsoleContext);
  if (!identity) throw new Error("useConsole outside the console layout");
  return identity;
}

const roleNames: Record<MemberRole, string> = {
  observer: "observer",
  operator: "operator",
  administrator: "administrator",
  owner: "owner",
};

/** The lowest role allowed `action`, from the server's own permission table. */
function lowestRoleFor(action: Action): MemberRole {
  const order: MemberRole[] = ["observer", "operator", "administrator", "owner"];
  return order.find((role) => can(role, action)) ?? "owner";
}

/**
 * Whether the signed-in member may take `action` here and, when not, the reason to show on the
 * disabled control ("Requires operator or above"). The server checks the same table.
 */
export function usePermission(action: Action): { allowed: boolean; reason?: string } {
  const { role } = useConsole();
  if (role && can(role, action)) return { allowed: true };
  const lowest = lowestRoleFor(action);
  const above = lowest === "owner" ? "" : " or above";
  return {
    allowed: false,
    reason: `Requires the ${roleNames[lowest]} role${above}${role ? ` (yours: ${roleNames[role]})` : ""}`,
  };
}
