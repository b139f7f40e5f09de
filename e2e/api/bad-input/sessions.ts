import { expect } from "vitest";
import { call } from "@/testing/client";
import { internalHeaders } from "@/testing/internal";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { seedSession, sessionInput, setRecording } from "@/testing/seeds/sessions";
import type { Table } from "../support/bad-input";

const longText = (length: number) => "a".repeat(length);

async function sessionOf(namespace: SeededNamespace, uid: string) {
  const response = await call("GET", `/api/sessions/${uid}`, { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`GET session: ${response.status} ${response.text}`);
  return response.body;
}

async function sessionsOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/sessions?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list sessions: ${response.status} ${response.text}`);
  return response.body as unknown[];
}

function listSessionsTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["page=1.5", () => ({ query: "page=1.5" }), ["page"]],
      ["per_page=0", () => ({ query: "per_page=0" }), ["per_page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=abc", () => ({ query: "per_page=abc" }), ["per_page"]],
      ["active=yes", () => ({ query: "active=yes" }), ["active"]],
      ["authenticated=1", () => ({ query: "authenticated=1" }), ["authenticated"]],
      ["recorded=TRUE", () => ({ query: "recorded=TRUE" }), ["recorded"]],
      ["a device_uid that is not one", () => ({ query: "device_uid=rpi-1" }), ["device_uid"]],
      ["a username of 256 characters", () => ({ query: `username=${longText(256)}` }), ["username"]],
    ],
  };
}

function setAuthenticatedTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      const { session } = await seedSession(namespace);
      return {
        credentials: { headers: await internalHeaders() },
        params: { uid: session.uid },
        values: {},
        verify: async () => expect((await sessionOf(namespace, session.uid)).authenticated).toBe(false),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["authenticated"]],
      ["a string", () => ({ body: { authenticated: "true" } }), ["authenticated"]],
      ["a number", () => ({ body: { authenticated: 1 } }), ["authenticated"]],
      ["null", () => ({ body: { authenticated: null } }), ["authenticated"]],
    ],
  };
}

/** Only what is not a JSON object is a 400 here; a bad frame in an object is a 422 (e2e/api/sessions.test.ts). */
function recordSessionTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      await setRecording(namespace, true);
      const { session } = await seedSession(namespace);
      return {
        credentials: { headers: await internalHeaders() },
        params: { uid: session.uid },
        values: {},
        verify: async () => {
          const play = await call("GET", `/api/sessions/${session.uid}/play`, { token: namespace.owner.tenantToken });
          expect(play.status).toBe(200);
          expect(play.body).toEqual([]);
        },
      };
    },
    cases: [],
  };
}

function closeSessionTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      const { session, device } = await seedSession(namespace);
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { uid: session.uid },
        values: { device: device.uid },
        verify: async () => expect((await sessionOf(namespace, session.uid)).active).toBe(true),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["device"]],
      ["a device uid in upper case", (v) => ({ body: { device: v.device?.toUpperCase() } }), ["device"]],
      ["a 63-character device uid", (v) => ({ body: { device: v.device?.slice(1) } }), ["device"]],
      ["a numeric device", () => ({ body: { device: 12345 } }), ["device"]],
      ["a device list", (v) => ({ body: { device: [v.device] } }), ["device"]],
    ],
  };
}

/** A valid start for the table's device, with one field replaced. */
const withField = (field: string, value: unknown) => (values: Record<string, string>) => ({
  body: { ...sessionInput({ uid: values.device ?? "" }), [field]: value },
});

function startSessionTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      const device = await seedDevice(namespace);
      return {
        credentials: { headers: await internalHeaders() },
        values: { device: device.uid },
        verify: async () => expect(await sessionsOf(namespace)).toEqual([]),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["device_uid", "ip_address", "uid", "username"]],
      ["a uid that is not hex", withField("uid", "z".repeat(64)), ["uid"]],
      ["a device uid in upper case", (v) => withField("device_uid", v.device?.toUpperCase())(v), ["device_uid"]],
      ["an empty username", withField("username", ""), ["username"]],
      ["a 256-character username", withField("username", longText(256)), ["username"]],
      ["an address that is not an IP", withField("ip_address", "999.1.1.1"), ["ip_address"]],
      ["a host name as the address", withField("ip_address", "example.com"), ["ip_address"]],
      ["a 65-character type", withField("type", longText(65)), ["type"]],
      ["a numeric term", withField("term", 7), ["term"]],
    ],
  };
}

export const tables: Record<string, () => Table> = {
  listSessions: listSessionsTable,
  setSessionAuthenticated: setAuthenticatedTable,
  recordSession: recordSessionTable,
  closeSession: closeSessionTable,
  startSession: startSessionTable,
};
