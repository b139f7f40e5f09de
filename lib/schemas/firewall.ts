import { z } from "zod";
import { firewallActions } from "@/models/enums";
import { pagination } from "./common";
import { deviceFilter, deviceFilterObject, userRegex } from "./public-keys";

const maxInteger = 2147483647;

/** The path `id`: digits, whether the specification calls it an integer or a string. */
export const firewallRuleParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,10}$/, { message: "expected a rule id (digits)", abort: true })
    .refine((id) => Number(id) <= maxInteger, "no such rule id")
    .transform(Number),
});

export const firewallRuleBody = z.object({
  action: z.enum(firewallActions),
  active: z.boolean(),
  filter: deviceFilter,
  priority: z.number().int().min(0, "at least 0").max(maxInteger, `at most ${maxInteger}`),
  source_ip: userRegex,
  username: userRegex,
});

export const listFirewallRulesQuery = pagination;

export const firewallRuleObject = z.object({
  id: z.string(),
  tenant_id: z.string(),
  action: z.enum(firewallActions),
  active: z.boolean(),
  filter: deviceFilterObject,
  priority: z.number().int(),
  source_ip: z.string(),
  username: z.string(),
});
