import type { SeededDevice } from "@/testing/seeds/devices";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import { frame, seedSession, sessionInput } from "@/testing/seeds/sessions";
import type { Entry } from "../support/matrix";

/** One device and one session per namespace, shared by the entries that only read or mark it. */
const seeded = new Map<string, Promise<{ device: SeededDevice; session: { uid: string } }>>();
const sessionIn = (namespace: SeededNamespace) => {
  let found = seeded.get(namespace.tenantId);
  if (!found) {
    found = seedSession(namespace);
    seeded.set(namespace.tenantId, found);
  }
  return found;
};
const uidParams = async (namespace: SeededNamespace) => ({ params: { uid: (await sessionIn(namespace)).session.uid } });

export const requests: Record<string, Entry> = {
  listSessions: { request: () => ({ query: "page=1&per_page=5" }) },
  getSession: { request: uidParams },
  playSession: { request: uidParams },
  downloadSessionCast: { request: uidParams },
  // Closing is not undone: each request closes a session of its own.
  closeSession: {
    request: async (namespace) => {
      const { device, session } = await seedSession(namespace, { device: (await sessionIn(namespace)).device });
      return { params: { uid: session.uid }, body: { device: device.uid } };
    },
  },
  setSessionAuthenticated: {
    request: async (namespace) => ({ ...(await uidParams(namespace)), body: { authenticated: true } }),
  },
  recordSession: {
    request: async (namespace) => {
      const { session } = await sessionIn(namespace);
      return { params: { uid: session.uid }, body: frame(session.uid) };
    },
  },
  startSession: {
    request: async (namespace) => ({ body: sessionInput((await sessionIn(namespace)).device) }),
  },
};
