import { beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/lib/api";
import { can } from "@/lib/auth/roles";
import type { Operation } from "@/lib/http/operation";
import { type ApiResponse, call, uniqueName } from "@/testing/client";
import { type Role, type SeededNamespace, seedApiKey, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { seedUser } from "@/testing/seeds/users";
import type { Actor, Credentials, Entry, Prepared, Via } from "./support/matrix";

/**
 * For every operation and every role, with a JWT and with an API key of that role: a valid
 * request is answered 200 when the permission table allows it, else 403. Each operation needs
 * an entry in `requests` below: a new operation without one fails this file.
 */

const roles: Role[] = ["owner", "administrator", "operator", "observer"];
const vias: Via[] = ["jwt", "apikey"];

/** A new user added to the namespace as observer by its owner: a target for member operations. */
const observerIn = (namespace: SeededNamespace) => seedMember(namespace, "observer");

/** A new observer-role API key of the namespace, made by its owner; returns its name. */
async function keyNameIn(namespace: SeededNamespace) {
  const name = uniqueName("k");
  const response = await call("POST", "/api/namespaces/api-key", {
    token: namespace.owner.tenantToken,
    body: { name, expires_at: -1, role: "observer" },
  });
  if (response.status !== 200) throw new Error(`API key create failed: ${response.status} ${response.text}`);
  return name;
}

/**
 * A valid request for every operation that needs credentials, keyed by operation id: these,
 * and those of each resource in ./matrix/*.ts (each exports `requests`).
 */
const coreRequests: Record<string, Entry> = {
  // users
  getCurrentUser: { request: () => ({}) },
  getToken: { request: (namespace) => ({ params: { tenant: namespace.tenantId } }) },
  switchNamespaceToken: { request: (namespace) => ({ params: { tenant: namespace.tenantId } }) },
  updateUser: { request: () => ({ body: { name: "Matrix User" } }) },
  updateUserData: {
    request: (_namespace, actor) => ({ params: { id: actor.user.id }, body: { name: "Matrix Data" } }),
  },
  deleteUser: {
    freshNamespace: true,
    // The owner's account goes once its namespace has gone; other members own nothing.
    request: async (namespace, actor) => {
      if (actor.via === "jwt" && actor.user.id === namespace.owner.id) {
        const deleted = await call("DELETE", `/api/namespaces/${namespace.tenantId}`, {
          token: namespace.owner.tenantToken,
        });
        if (deleted.status !== 200) throw new Error(`namespace delete failed: ${deleted.status} ${deleted.text}`);
      }
      return {};
    },
  },
  updateUserPassword: {
    request: (_namespace, actor) => ({
      params: { id: actor.user.id },
      body: { current_password: actor.user.password, new_password: actor.user.password },
    }),
  },
  // namespaces
  listNamespaces: { request: () => ({ query: "page=1&per_page=5" }) },
  createNamespace: { request: () => ({ body: { name: uniqueName("ns") } }) },
  getNamespace: { request: (namespace) => ({ params: { tenant: namespace.tenantId } }) },
  editNamespace: {
    request: (namespace) => ({
      params: { tenant: namespace.tenantId },
      body: { settings: { connection_announcement: "role matrix" } },
    }),
  },
  deleteNamespace: { freshNamespace: true, request: (namespace) => ({ params: { tenant: namespace.tenantId } }) },
  addMember: {
    request: async (namespace) => ({
      params: { tenant: namespace.tenantId },
      body: { identifier: (await seedUser()).username, role: "observer" },
    }),
  },
  updateMember: {
    request: async (namespace) => ({
      params: { tenant: namespace.tenantId, uid: (await observerIn(namespace)).id },
      body: { role: "operator" },
    }),
  },
  removeMember: {
    request: async (namespace) => ({ params: { tenant: namespace.tenantId, uid: (await observerIn(namespace)).id } }),
  },
  // Each actor leaves a namespace of its own; the owner cannot leave.
  leaveNamespace: {
    freshNamespace: true,
    refusedRoles: ["owner"],
    request: (namespace) => ({ params: { tenant: namespace.tenantId } }),
  },
  // Every actor is a member already: accepting again changes nothing (e2e/api/invitations.test.ts).
  acceptInvitation: { request: (namespace) => ({ params: { tenant: namespace.tenantId }, body: { sig: "matrix" } }) },
  getSessionRecord: { request: () => ({}) },
  setSessionRecord: {
    request: (namespace) => ({ params: { tenant: namespace.tenantId }, body: { session_record: false } }),
  },
  // API keys
  createApiKey: { request: () => ({ body: { name: uniqueName("k"), expires_at: 30 } }) },
  listApiKeys: { request: () => ({ query: "page=1&per_page=5&sort_by=name&order_by=asc" }) },
  updateApiKey: {
    request: async (namespace) => ({ params: { name: await keyNameIn(namespace) }, body: { name: uniqueName("k") } }),
  },
  deleteApiKey: { request: async (namespace) => ({ params: { name: await keyNameIn(namespace) } }) },
  // internal
  adminCommand: { request: () => ({ body: { args: ["help"] } }) },
};

const resourceModules = import.meta.glob<{ requests: Record<string, Entry> }>("./matrix/*.ts", { eager: true });
const requests: Record<string, Entry> = Object.assign(
  {},
  coreRequests,
  ...Object.values(resourceModules).map((module) => module.requests),
);

function pathOf(operation: Operation, params: Record<string, string> = {}) {
  const path = operation.path.replace(/\{([\w-]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operation.id}: no value for path parameter '${name}'`);
    return encodeURIComponent(value);
  });
  return path;
}

function entryOf(operation: Operation): Entry {
  const entry = requests[operation.id];
  if (!entry) throw new Error(`role-matrix: no request for operation '${operation.id}': add one to 'requests'`);
  return entry;
}

async function send(operation: Operation, prepared: Prepared, credentials: Credentials): Promise<ApiResponse> {
  const url = pathOf(operation, prepared.params) + (prepared.query ? `?${prepared.query}` : "");
  return call(operation.method, url, { ...credentials, body: prepared.body });
}

async function actorIn(namespace: SeededNamespace, role: Role, via: Via): Promise<Actor> {
  if (via === "apikey") {
    return { role, via, user: namespace.owner, credentials: { apiKey: await seedApiKey(namespace, role) } };
  }
  const user = role === "owner" ? namespace.owner : await seedMember(namespace, role);
  return { role, via, user, credentials: { token: user.tenantToken } };
}

/** 200 (or the entry's `allowedStatus`) when the operation lets this role (through this credential) in, else 403. */
function expectedStatus(operation: Operation, role: Role, via: Via): number {
  const access = operation.access;
  const entry = entryOf(operation);
  if (entry.refusedRoles?.includes(role)) return 403;
  const allowed = entry.allowedStatus ?? 200;
  switch (access.kind) {
    case "user":
      return via === "jwt" ? allowed : 403;
    case "principal":
      return allowed;
    case "tenant":
      if (via === "apikey" && access.apiKey === false) return 403;
      return can(role, access.permission) ? allowed : 403;
    default:
      throw new Error(`${operation.id}: no role matrix for access kind '${access.kind}'`);
  }
}

const nonPublic = operations.filter((operation) => operation.access.kind !== "public");
// Operations whose own rules authenticate a request that comes without credentials.
const takesNoCredentials = (operation: Operation) =>
  operation.access.kind === "tenant" && operation.access.allowsNoCredentials === true;
const withRoles = operations.filter((operation) => ["tenant", "principal", "user"].includes(operation.access.kind));
const tenantFromPath = operations.filter(
  (operation: Operation) => operation.access.kind === "tenant" && operation.access.tenantFromPath === true,
);

let shared: SeededNamespace;
let actors: Actor[];

beforeAll(async () => {
  shared = await seedNamespace();
  actors = await Promise.all(roles.flatMap((role) => vias.map((via) => actorIn(shared, role, via))));
});

describe("role matrix", () => {
  it("has a request for every operation that needs credentials, and for nothing else", () => {
    expect(nonPublic.length).toBeGreaterThan(0);
    expect(nonPublic.map((operation) => operation.id).filter((id) => !requests[id])).toEqual([]);
    const known = new Set(operations.map((operation) => operation.id));
    expect(Object.keys(requests).filter((id) => !known.has(id))).toEqual([]);
  });

  it("covers the operations of every access kind that has roles", () => {
    const kinds = new Set(withRoles.map((operation) => operation.access.kind));
    expect([...kinds].sort()).toEqual(["principal", "tenant", "user"]);
  });

  it.each(
    withRoles.map((operation) => [`${operation.method} ${operation.path} (${operation.id})`, operation] as const),
  )("%s answers each role by the permission table", async (_label, operation) => {
    const entry = entryOf(operation);
    const results = await Promise.all(
      roles.flatMap((role) =>
        vias.map(async (via) => {
          let namespace = shared;
          let actor = actors.find((candidate) => candidate.role === role && candidate.via === via);
          if (!actor) throw new Error("missing actor");
          if (entry.freshNamespace) {
            namespace = await seedNamespace();
            actor = await actorIn(namespace, role, via);
          }
          const prepared = await entry.request(namespace, actor);
          const response = await send(operation, prepared, actor.credentials);
          const detail = response.status === expectedStatus(operation, role, via) ? "" : ` ${response.text}`;
          return {
            got: `${role}/${via}: ${response.status}${detail}`,
            want: `${role}/${via}: ${expectedStatus(operation, role, via)}`,
          };
        }),
      ),
    );
    expect(results.map((result) => result.got)).toEqual(results.map((result) => result.want));
  });

  it.each(
    operations
      .filter((operation) => operation.access.kind === "internal")
      .map((operation) => [operation.id, operation]),
  )("%s refuses every user and API key (401)", async (_id, operation) => {
    const prepared = await entryOf(operation).request(shared, actors[0] as Actor);
    const statuses = await Promise.all(actors.map((actor) => send(operation, prepared, actor.credentials)));
    expect(statuses.map((response) => response.status)).toEqual(actors.map(() => 401));
  });
});

describe("credentials", () => {
  let victim: SeededNamespace;
  beforeAll(async () => {
    victim = await seedNamespace();
  });

  const badCredentials: [string, Credentials & { headers?: Record<string, string> }][] = [
    ["no credentials", {}],
    ["a malformed Authorization header", { headers: { authorization: "Basic dXNlcjpwYXNz" } }],
    ["a JWT with a bad signature", { token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl" }],
    ["an unknown API key", { apiKey: "00000000-0000-4000-8000-000000000000" }],
  ];

  it.each(badCredentials)("every operation that needs credentials answers 401 to %s", async (label, credentials) => {
    const refusing =
      label === "no credentials" ? nonPublic.filter((operation) => !takesNoCredentials(operation)) : nonPublic;
    const results = await Promise.all(
      refusing.map(async (operation) => {
        const actor = actors[0] as Actor;
        const prepared = await entryOf(operation).request(victim, actor);
        const url = pathOf(operation, prepared.params) + (prepared.query ? `?${prepared.query}` : "");
        const response = await call(operation.method, url, { ...credentials, body: prepared.body });
        return { id: operation.id, status: response.status, body: response.body };
      }),
    );
    expect(results.map((result) => `${result.id}: ${result.status}`)).toEqual(
      refusing.map((operation) => `${operation.id}: 401`),
    );
    for (const result of results) expect(result.body).toEqual({ message: expect.any(String) });
    const read = await call("GET", `/api/namespaces/${victim.tenantId}`, { token: victim.owner.tenantToken });
    expect(read.status).toBe(200);
  });

  it("another tenant's member gets 404 from every operation with the tenant in the path, JWT or API key", async () => {
    const [victim, outsiderNamespace] = await Promise.all([seedNamespace(), seedNamespace()]);
    const outsiders = [
      await actorIn(outsiderNamespace, "owner", "jwt"),
      await actorIn(outsiderNamespace, "owner", "apikey"),
    ];
    expect(tenantFromPath.length).toBeGreaterThan(0);
    const addedIdentifiers: string[] = [];
    const results = await Promise.all(
      tenantFromPath.flatMap((operation) =>
        outsiders.map(async (actor) => {
          const prepared = await entryOf(operation).request(victim, actor);
          if (operation.id === "addMember") addedIdentifiers.push((prepared.body as { identifier: string }).identifier);
          const response = await send(operation, prepared, actor.credentials);
          return `${operation.id}/${actor.via}: ${response.status}`;
        }),
      ),
    );
    expect(results).toEqual(
      tenantFromPath.flatMap((operation) => outsiders.map((actor) => `${operation.id}/${actor.via}: 404`)),
    );

    // Nothing changed in the victim namespace.
    const read = await call("GET", `/api/namespaces/${victim.tenantId}`, { token: victim.owner.tenantToken });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe(victim.name);
    expect(read.body.settings).toEqual({
      session_record: false,
      connection_announcement: "",
      allow_unsigned_agents: false,
    });
    const others = read.body.members.filter((member: { id: string }) => member.id !== victim.owner.id);
    expect(read.body.members).toContainEqual(expect.objectContaining({ id: victim.owner.id, role: "owner" }));
    // updateMember and removeMember each added an observer target per credential; none was changed or removed.
    expect(others.map((member: { role: string }) => member.role)).toEqual([
      "observer",
      "observer",
      "observer",
      "observer",
    ]);
    for (const identifier of addedIdentifiers) {
      expect(others.map((member: { username: string }) => member.username)).not.toContain(identifier);
    }
  });
});
