import { type SeededDevice, seedDevice } from "@/testing/seeds/devices";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import type { Entry } from "../support/matrix";

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
