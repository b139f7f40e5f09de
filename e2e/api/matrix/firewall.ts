import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import type { Entry } from "../support/matrix";

const newRule = (priority = 1) => ({
  action: "deny",
  active: true,
  priority,
  source_ip: ".*",
  username: "^root$",
  filter: { tags: ["matrix-one", "matrix-two"] },
});

/** A new rule of the namespace, made by its owner; returns its id. */
async function ruleIn(namespace: SeededNamespace) {
  const response = await call("POST", "/api/firewall/rules", { token: namespace.owner.tenantToken, body: newRule() });
  if (response.status !== 200) throw new Error(`firewall rule create failed: ${response.status} ${response.text}`);
  return response.body.id as string;
}

// Registrations are rate-limited per namespace and source: one device per namespace serves every role.
const devices = new Map<string, Promise<string>>();
function deviceIn(namespace: SeededNamespace) {
  let uid = devices.get(namespace.tenantId);
  if (!uid) {
    uid = seedDevice(namespace).then((device) => device.uid);
    devices.set(namespace.tenantId, uid);
  }
  return uid;
}

export const requests: Record<string, Entry> = {
  createFirewallRule: { request: () => ({ body: newRule(5) }) },
  listFirewallRules: { request: () => ({ query: "page=1&per_page=5" }) },
  getFirewallRule: { request: async (namespace) => ({ params: { id: await ruleIn(namespace) } }) },
  updateFirewallRule: {
    request: async (namespace) => ({
      params: { id: await ruleIn(namespace) },
      body: { ...newRule(2), action: "allow" },
    }),
  },
  deleteFirewallRule: { request: async (namespace) => ({ params: { id: await ruleIn(namespace) } }) },
  addFirewallRuleTag: {
    request: async (namespace) => ({ params: { id: await ruleIn(namespace) }, body: { tag: "matrix-three" } }),
  },
  removeFirewallRuleTag: {
    request: async (namespace) => ({ params: { id: await ruleIn(namespace) }, body: { tag: "matrix-one" } }),
  },
  updateFirewallRuleTags: {
    request: async (namespace) => ({ params: { id: await ruleIn(namespace) }, body: { tags: ["matrix-new"] } }),
  },
  testFirewall: {
    request: async (namespace) => ({
      body: { username: "root", source_ip: "192.0.2.1", device_uid: await deviceIn(namespace) },
    }),
  },
};
