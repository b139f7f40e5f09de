import * as api from "@/lib/api/firewall";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { deleteFirewallRule, getFirewallRule, updateFirewallRule } from "@/lib/services/firewall";

// GET /api/firewall/rules/{id}
export const GET = route(api.getFirewallRule, ({ scope, params }) => getFirewallRule(getDb(), scope, params.id));

// PUT /api/firewall/rules/{id}
export const PUT = route(api.updateFirewallRule, ({ scope, params, body }) =>
  updateFirewallRule(getDb(), scope, params.id, body),
);

// DELETE /api/firewall/rules/{id}
export const DELETE = route(api.deleteFirewallRule, ({ scope, params }) =>
  deleteFirewallRule(getDb(), scope, params.id),
);
