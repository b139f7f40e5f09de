import { type SeededNamespace, uniqueName } from "../support/client";
import { seedDevice } from "../support/devices";
import type { Entry } from "../support/matrix";

/** One device per namespace for the operations that can share it; created on first use. */
const sharedDevices = new Map<string, Promise<string>>();
function sharedDevice(namespace: SeededNamespace) {
  let uid = sharedDevices.get(namespace.tenantId);
  if (!uid) {
    uid = seedDevice(namespace, { tags: ["matrix-shared"] }).then((device) => device.uid);
    sharedDevices.set(namespace.tenantId, uid);
  }
  return uid;
}

/** A device of its own, for the operations that use one up. */
const ownDevice = async (namespace: SeededNamespace, tags?: string[]) => (await seedDevice(namespace, { tags })).uid;

/** Valid requests for the device, tag and statistics operations (see e2e/api/role-matrix.test.ts). */
export const requests: Record<string, Entry> = {
  listDevices: { request: () => ({ query: "page=1&per_page=5&status=pending&sort_by=name&order_by=asc" }) },
  getDevice: { request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) } }) },
  updateDevice: {
    request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) }, body: { public_url: false } }),
  },
  deleteDevice: { request: async (namespace) => ({ params: { uid: await ownDevice(namespace) } }) },
  acceptDevice: { request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) } }) },
  updateDeviceStatus: {
    request: async (namespace) => ({ params: { uid: await sharedDevice(namespace), status: "pending" } }),
  },
  createDeviceTag: {
    request: async (namespace) => ({ params: { uid: await ownDevice(namespace) }, body: { tag: uniqueName("tag") } }),
  },
  updateDeviceTags: {
    request: async (namespace) => ({
      params: { uid: await sharedDevice(namespace) },
      body: { tags: ["matrix-shared"] },
    }),
  },
  deleteDeviceTag: {
    request: async (namespace) => {
      const tag = uniqueName("tag");
      return { params: { uid: await ownDevice(namespace, [tag]), tag } };
    },
  },
  listTags: { request: () => ({ query: "page=1&per_page=5" }) },
  renameTag: {
    request: async (namespace) => {
      const tag = uniqueName("tag");
      await ownDevice(namespace, [tag]);
      return { params: { tag }, body: { tag: uniqueName("tag") } };
    },
  },
  deleteTag: {
    request: async (namespace) => {
      const tag = uniqueName("tag");
      await ownDevice(namespace, [tag]);
      return { params: { tag } };
    },
  },
  getStats: { request: () => ({}) },
};
