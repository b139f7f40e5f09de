import { agentBody, authDevice } from "@/testing/agents";
import type { Entry } from "../support/matrix";

/** Device-authenticated operations: only the 401 checks apply (no roles). */
export const requests: Record<string, Entry> = {
  markDeviceOffline: {
    request: async (namespace) => ({ params: { uid: (await authDevice(agentBody(namespace.tenantId))).body.uid } }),
  },
};
