"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import type { z } from "zod";
import type { firewallRuleObject } from "@/lib/schemas/firewall";
import { type Answer, api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";

export type FirewallRule = z.infer<typeof firewallRuleObject>;

export const rulesPath = "/api/firewall/rules";
export const rulePath = (id: string) => `${rulesPath}/${encodeURIComponent(id)}`;

/** The fields a rule is written with (PUT replaces all of them). */
export const ruleBodyOf = ({ action, active, filter, priority, source_ip, username }: FirewallRule) => ({
  action,
  active,
  filter,
  priority,
  source_ip,
  username,
});

/** The namespace's rules in evaluation order (the server's), the first 100. */
export function useFirewallRules() {
  const { tenant, edition } = useConsole();
  return useQuery({
    queryKey: queryKeys.firewallRules(tenant),
    queryFn: () => api<FirewallRule[]>(`${rulesPath}?per_page=100`),
    // Firewall rules are a cloud-edition feature: the community edition has no such operation.
    enabled: edition === "cloud",
  });
}

export function useInvalidateRules() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.firewallRules(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.tags(tenant) });
  };
}

/** Turns a rule on or off at once; the switch flips back, with a message, if the server refuses. */
export function useActiveToggle() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  const key = queryKeys.firewallRules(tenant);
  return useMutation({
    mutationFn: ({ rule, active }: { rule: FirewallRule; active: boolean }) =>
      api<FirewallRule>(rulePath(rule.id), { method: "PUT", body: json({ ...ruleBodyOf(rule), active }) }),
    onMutate: async ({ rule, active }) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Answer<FirewallRule[]>>(key);
      if (before) {
        queryClient.setQueryData<Answer<FirewallRule[]>>(key, {
          ...before,
          data: before.data.map((item) => (item.id === rule.id ? { ...item, active } : item)),
        });
      }
      return { before };
    },
    onError: (failure, { rule, active }, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      toast.error(`Rule #${rule.id} was not turned ${active ? "on" : "off"}: ${failureText(failure)}`);
    },
    onSuccess: (_answer, { rule, active }) => toast.success(`Rule #${rule.id} turned ${active ? "on" : "off"}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}
