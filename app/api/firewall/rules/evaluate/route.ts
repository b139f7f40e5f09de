import * as api from "@/lib/api/firewall";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { testFirewall } from "@/lib/services/firewall";

// POST /api/firewall/rules/evaluate - the rule tester: the gateway's decision for a connection
export const POST = route(api.testFirewall, ({ scope, body }) => testFirewall(getDb(), scope, body));
