import * as api from "@/lib/api/firewall";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { addFirewallRuleTag, removeFirewallRuleTag, updateFirewallRuleTags } from "@/lib/services/firewall";

// POST /api/firewall/rules/{id}/tags - add one tag
export const POST = route(api.addFirewallRuleTag, ({ scope, params, body }) =>
  addFirewallRuleTag(getDb(), scope, params.id, body.tag),
);

// DELETE /api/firewall/rules/{id}/tags - remove the tag named in the body
export const DELETE = route(api.removeFirewallRuleTag, ({ scope, params, body }) =>
  removeFirewallRuleTag(getDb(), scope, params.id, body.tag),
);

// PUT /api/firewall/rules/{id}/tags - replace the filter with these tags
export const PUT = route(api.updateFirewallRuleTags, ({ scope, params, body }) =>
  updateFirewallRuleTags(getDb(), scope, params.id, body.tags),
);
