import { call, uniqueName } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import type { Actor, Entry } from "../support/matrix";

// Registrations are rate-limited per namespace and source, so devices are reused where they can be.
const devices = new Map<string, Promise<string>>();
function deviceFor(key: string, namespace: SeededNamespace) {
  let uid = devices.get(key);
  if (!uid) {
    uid = seedDevice(namespace).then((device) => device.uid);
    devices.set(key, uid);
  }
  return uid;
}

/** One device of the namespace for the operations that leave it usable. */
const sharedDevice = (namespace: SeededNamespace) => deviceFor(namespace.tenantId, namespace);

/** A device of the actor's own whose tags are exactly `tags`, for the tag operations. */
async function actorDeviceWith(namespace: SeededNamespace, actor: Actor, tags: string[]) {
  const uid = await deviceFor(`${namespace.tenantId}|${actor.role}|${actor.via}`, namespace);
  const response = await call("PUT", `/api/devices/${uid}/tags`, {
    token: namespace.owner.tenantToken,
    body: { tags },
  });
  if (response.status !== 200) throw new Error(`set tags failed: ${response.status} ${response.text}`);
  return uid;
}

/** Valid requests for the device, tag and statistics operations (see e2e/api/role-matrix.test.ts). */
export const requests: Record<string, Entry> = {
  listDevices: { request: () => ({ query: "page=1&per_page=5&status=pending&sort_by=name&order_by=asc" }) },
  getDevice: { request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) } }) },
  getDeviceDiagnostics: { request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) } }) },
  updateDevice: {
    request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) }, body: { public_url: false } }),
  },
  deleteDevice: { request: async (namespace) => ({ params: { uid: (await seedDevice(namespace)).uid } }) },
  acceptDevice: { request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) } }) },
  updateDeviceStatus: {
    request: async (namespace) => ({ params: { uid: await sharedDevice(namespace), status: "pending" } }),
  },
  createDeviceTag: {
    request: async (namespace, actor) => ({
      params: { uid: await actorDeviceWith(namespace, actor, ["matrix-seed"]) },
      body: { tag: uniqueName("tag") },
    }),
  },
  updateDeviceTags: {
    request: async (namespace) => ({ params: { uid: await sharedDevice(namespace) }, body: { tags: ["matrix-tag"] } }),
  },
  deleteDeviceTag: {
    request: async (namespace, actor) => {
      const tag = uniqueName("tag");
      return { params: { uid: await actorDeviceWith(namespace, actor, [tag]), tag } };
    },
  },
  listTags: { request: () => ({ query: "page=1&per_page=5" }) },
  renameTag: {
    request: async (namespace, actor) => {
      const tag = uniqueName("tag");
      await actorDeviceWith(namespace, actor, [tag]);
      return { params: { tag }, body: { tag: uniqueName("tag") } };
    },
  },
  deleteTag: {
    request: async (namespace, actor) => {
      const tag = uniqueName("tag");
      await actorDeviceWith(namespace, actor, [tag]);
      return { params: { tag } };
    },
  },
  getStats: { request: () => ({}) },
  // The stream's status and headers are its answer (testing/client.ts does not wait for its end).
  streamEvents: { request: () => ({}) },
};
