import type { SeededNamespace } from "../support/client";
import type { Entry } from "../support/matrix";
import { type SeededDevice, seedDevice } from "../support/sessions";

const devices = new Map<string, Promise<SeededDevice>>();
const deviceIn = (namespace: SeededNamespace) => {
  let device = devices.get(namespace.tenantId);
  if (!device) {
    device = seedDevice(namespace);
    devices.set(namespace.tenantId, device);
  }
  return device;
};

export const requests: Record<string, Entry> = {
  createTerminalToken: {
    request: async (namespace) => ({
      body: { device: (await deviceIn(namespace)).uid, username: "root", password: "secret" },
    }),
  },
};
