import * as api from "@/lib/api/firewall";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { createFirewallRule, listFirewallRules } from "@/lib/services/firewall";

// POST /api/firewall/rules
export const POST = route(api.createFirewallRule, ({ scope, body }) => createFirewallRule(getDb(), scope, body));

// GET /api/firewall/rules - in evaluation order
export const GET = route(api.listFirewallRules, ({ scope, query }) => listFirewallRules(getDb(), scope, query));
