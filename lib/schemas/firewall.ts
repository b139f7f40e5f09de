import { z } from "zod";
import { firewallActions } from "@/models/enums";
import { pagination } from "./common";
import { deviceUid } from "./devices";
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

/**
 * The rule tester's question. The address is written as the gateway sees a peer: an IPv4 address
 * stays plain, IPv6 is lower case, and an IPv4-mapped IPv6 address is its IPv4 address.
 */
export const testFirewallBody = z.object({
  username: z.string().min(1, "at least 1 character").max(255, "at most 255 characters"),
  source_ip: z
    .union([z.ipv4(), z.ipv6()], { message: "expected an IP address" })
    .transform((address) => address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "")),
  device_uid: deviceUid,
});

export const firewallTestObject = z.object({
  action: z.enum(firewallActions),
  rule: z.object({ id: z.string(), priority: z.number().int() }).optional(),
});
