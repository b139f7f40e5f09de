import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { operations } from "@/lib/api";
import type { Operation } from "@/lib/http/operation";
import { type ApiResponse, call, uniqueName } from "@/testing/client";
import { type SeededNamespace, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { type SeededUser, seedUser, tokenFor } from "@/testing/seeds/users";
import type { Case, Context, Table } from "./support/bad-input";

/**
 * Table-driven bad input for every operation that takes a body or a query: each answer is a 400
 * naming the offending fields (`{message, fields}`, or the array of field names on the user
 * register/update operations), never a 500, and a refused request writes nothing.
 */

const fieldNamesOf = (response: ApiResponse, operation: Operation): string[] => {
  if (operation.hasFieldNameErrors) {
    expect(Array.isArray(response.body), `expected an array of field names, got ${response.text}`).toBe(true);
    for (const item of response.body) expect(typeof item).toBe("string");
    return [...response.body].sort();
  }
  expect(response.body).toEqual({
    message: expect.any(String),
    fields: expect.arrayContaining([{ field: expect.any(String), message: expect.any(String) }]),
  });
  return [...new Set((response.body.fields as { field: string }[]).map((item) => item.field))].sort();
};

async function meOf(token: string) {
  const response = await call("GET", "/api/auth/user", { token });
  if (response.status !== 200) throw new Error(`GET /api/auth/user: ${response.status} ${response.text}`);
  return response.body;
}

async function namespaceOf(namespace: SeededNamespace) {
  const response = await call("GET", `/api/namespaces/${namespace.tenantId}`, { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`GET namespace: ${response.status} ${response.text}`);
  return response.body;
}

async function apiKeysOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/namespaces/api-key?per_page=100&sort_by=name&order_by=asc", {
    token: namespace.owner.tenantToken,
  });
  if (response.status !== 200) throw new Error(`list API keys: ${response.status} ${response.text}`);
  return (response.body as { name: string; role: string }[]).map((key) => `${key.name}:${key.role}`);
}

/** Whether a username or e-mail belongs to an account: adding it as a member answers 404 if not. */
async function accountExists(namespace: SeededNamespace, identifier: string) {
  const response = await call("POST", `/api/namespaces/${namespace.tenantId}/members`, {
    token: namespace.owner.tenantToken,
    body: { identifier, role: "observer" },
  });
  if (response.status === 404) return false;
  if (response.status === 200) {
    const removed = await call(
      "DELETE",
      `/api/namespaces/${namespace.tenantId}/members/${response.body.members.at(-1).id}`,
      {
        token: namespace.owner.tenantToken,
      },
    );
    expect(removed.status).toBe(200);
    return true;
  }
  throw new Error(`add member answered ${response.status} ${response.text}`);
}

async function expectLogin(user: SeededUser, password: string) {
  const response = await call("POST", "/api/login", { body: { username: user.username, password } });
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get("x-account-lockout")).toBe("0");
}

/** A namespace for checks that need one (account existence). */
let checker: SeededNamespace;
beforeAll(async () => {
  checker = await seedNamespace();
});

const longText = (length: number) => "x".repeat(length);

function loginTable(): Table {
  let user: SeededUser;
  return {
    setup: async () => {
      user = await seedUser();
      return {
        credentials: {},
        values: { username: user.username },
        // Validation failures are no failed logins: the account is not locked.
        verify: () => expectLogin(user, user.password),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["password", "username"]],
      ["no password", (v) => ({ body: { username: v.username } }), ["password"]],
      ["an empty password", (v) => ({ body: { username: v.username, password: "" } }), ["password"]],
      ["a numeric password", (v) => ({ body: { username: v.username, password: 12345 } }), ["password"]],
      ["a 257-character password", (v) => ({ body: { username: v.username, password: longText(257) } }), ["password"]],
      ["a 2-character username", () => ({ body: { username: "ab", password: "secret-pass" } }), ["username"]],
      ["a blank username", () => ({ body: { username: "    ", password: "secret-pass" } }), ["username"]],
      ["a numeric username", () => ({ body: { username: 12345, password: "secret-pass" } }), ["username"]],
      ["a 255-character username", () => ({ body: { username: longText(255), password: "x" } }), ["username"]],
    ],
  };
}

function registerTable(): Table {
  const valid = (username: string) => ({
    name: "Valid Name",
    email: `${username}@example.com`,
    username,
    password: "secret-pass",
  });
  const names: string[] = [];
  /** A valid registration with `changes`; its username is remembered to check it was not created. */
  const attempt = (changes: Record<string, unknown>) => () => {
    const username = uniqueName("r");
    names.push(username);
    return { body: { ...valid(username), ...changes } };
  };
  return {
    setup: async () => ({
      credentials: {},
      values: {},
      verify: async () => {
        for (const username of names) {
          expect(await accountExists(checker, username), username).toBe(false);
          expect(await accountExists(checker, `${username}@example.com`), username).toBe(false);
        }
      },
    }),
    cases: [
      ["an empty body", () => ({ body: {} }), ["email", "name", "password", "username"]],
      ["a 2-character name", attempt({ name: "ab" }), ["name"]],
      ["a 21-character name", attempt({ name: longText(21) }), ["name"]],
      ["a name that is blank once trimmed", attempt({ name: "   ab   " }), ["name"]],
      ["a numeric name", attempt({ name: 123 }), ["name"]],
      ["a bad e-mail", attempt({ email: "not-an-email" }), ["email"]],
      ["a numeric e-mail", attempt({ email: 5 }), ["email"]],
      ["a 2-character username", () => ({ body: { ...valid(uniqueName("r")), username: "ab" } }), ["username"]],
      [
        "a 31-character username",
        () => ({ body: { ...valid(uniqueName("r")), username: longText(31) } }),
        ["username"],
      ],
      ["a username with a space", () => ({ body: { ...valid(uniqueName("r")), username: "has space" } }), ["username"]],
      [
        "a username with a bad character",
        () => ({ body: { ...valid(uniqueName("r")), username: "bad!x" } }),
        ["username"],
      ],
      ["a 4-character password", attempt({ password: "1234" }), ["password"]],
      ["a 31-character password", attempt({ password: longText(31) }), ["password"]],
      ["a numeric password", attempt({ password: 123456 }), ["password"]],
      ["a non-boolean email_marketing", attempt({ email_marketing: "yes" }), ["email_marketing"]],
      ["a missing password", attempt({ password: undefined }), ["password"]],
      ["two bad fields", attempt({ name: "ab", password: "1" }), ["name", "password"]],
    ],
  };
}

/** The current user's state that a refused update must leave alone. */
async function userSnapshot(user: SeededUser) {
  const me = await meOf(user.token);
  return { name: me.name, user: me.user, email: me.email, recovery_email: me.recovery_email };
}

function updateUserTable(kind: "updateUser" | "updateUserData"): Table {
  let user: SeededUser;
  let before: Awaited<ReturnType<typeof userSnapshot>>;
  return {
    setup: async () => {
      user = await seedUser();
      before = await userSnapshot(user);
      return {
        credentials: { token: user.token },
        params: kind === "updateUserData" ? { id: user.id } : undefined,
        values: { email: user.email, password: user.password },
        verify: async () => {
          expect(await userSnapshot(user)).toEqual(before);
          await expectLogin(user, user.password);
        },
      };
    },
    cases: [
      ["a 2-character name", () => ({ body: { name: "ab" } }), ["name"]],
      ["a numeric name", () => ({ body: { name: 5 } }), ["name"]],
      ["a valid name with a bad e-mail", () => ({ body: { name: "Changed Name", email: "bad" } }), ["email"]],
      ["a valid name with a bad username", () => ({ body: { name: "Changed Name", username: "a b" } }), ["username"]],
      ["a 31-character username", () => ({ body: { username: longText(31) } }), ["username"]],
      ["a bad recovery e-mail", () => ({ body: { recovery_email: "bad" } }), ["recovery_email"]],
      ["a numeric recovery e-mail", () => ({ body: { recovery_email: 5 } }), ["recovery_email"]],
      [
        "a recovery e-mail equal to the e-mail",
        (v) => ({ body: { name: "Changed Name", recovery_email: v.email } }),
        ["recovery_email"],
      ],
      [
        "an e-mail equal to the new recovery e-mail",
        () => ({ body: { email: "same@example.org", recovery_email: "same@example.org" } }),
        ["recovery_email"],
      ],
      ...(kind === "updateUser"
        ? ([
            [
              "a 4-character password",
              (v) => ({ body: { password: "1234", current_password: v.password } }),
              ["password"],
            ],
            ["a password without current_password", () => ({ body: { password: "new-secret" } }), ["current_password"]],
            [
              "a 257-character current_password",
              () => ({ body: { password: "new-secret", current_password: longText(257) } }),
              ["current_password"],
            ],
          ] satisfies Case[])
        : []),
    ],
  };
}

function updateUserPasswordTable(): Table {
  let user: SeededUser;
  return {
    setup: async () => {
      user = await seedUser();
      return {
        credentials: { token: user.token },
        params: { id: user.id },
        values: { password: user.password },
        verify: () => expectLogin(user, user.password),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["current_password", "new_password"]],
      [
        "a 4-character new password",
        (v) => ({ body: { current_password: v.password, new_password: "abcd" } }),
        ["new_password"],
      ],
      [
        "a 31-character new password",
        (v) => ({ body: { current_password: v.password, new_password: longText(31) } }),
        ["new_password"],
      ],
      [
        "a numeric new password",
        (v) => ({ body: { current_password: v.password, new_password: 123456 } }),
        ["new_password"],
      ],
      [
        "an empty current password",
        () => ({ body: { current_password: "", new_password: "new-secret" } }),
        ["current_password"],
      ],
    ],
  };
}

function createNamespaceTable(): Table {
  let user: SeededUser;
  return {
    setup: async () => {
      user = await seedUser();
      return {
        credentials: { token: user.token },
        values: {},
        verify: async () => {
          const list = await call("GET", "/api/namespaces", { token: user.token });
          expect(list.status).toBe(200);
          expect(list.body).toEqual([]);
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["name"]],
      ["a numeric name", () => ({ body: { name: 12345 } }), ["name"]],
      ["an upper-case name", () => ({ body: { name: "UPPER" } }), ["name"]],
      ["a 31-character name", () => ({ body: { name: longText(31) } }), ["name"]],
      ["a null name", () => ({ body: { name: null } }), ["name"]],
    ],
  };
}

function editNamespaceTable(): Table {
  let namespace: SeededNamespace;
  let before: unknown;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      before = await namespaceOf(namespace);
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { tenant: namespace.tenantId },
        values: {},
        verify: async () => expect(await namespaceOf(namespace)).toEqual(before),
      };
    },
    cases: [
      [
        "a valid name with a non-boolean session_record",
        () => ({ body: { name: uniqueName("ns"), settings: { session_record: "yes" } } }),
        ["settings.session_record"],
      ],
      [
        "a valid name with a numeric connection_announcement",
        () => ({ body: { name: uniqueName("ns"), settings: { connection_announcement: 1 } } }),
        ["settings.connection_announcement"],
      ],
      [
        "valid settings with a bad name",
        () => ({ body: { name: "Bad Name", settings: { session_record: true, connection_announcement: "x" } } }),
        ["name"],
      ],
      ["a null name", () => ({ body: { name: null } }), ["name"]],
      ["settings that are an array", () => ({ body: { name: uniqueName("ns"), settings: [] } }), ["settings"]],
      [
        "a 4097-character connection_announcement",
        () => ({ body: { settings: { session_record: true, connection_announcement: longText(4097) } } }),
        ["settings.connection_announcement"],
      ],
    ],
  };
}

function addMemberTable(): Table {
  let namespace: SeededNamespace;
  let target: SeededUser;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      target = await seedUser();
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { tenant: namespace.tenantId },
        values: { username: target.username },
        verify: async () => {
          const members = (await namespaceOf(namespace)).members as { id: string }[];
          expect(members.map((member) => member.id)).toEqual([namespace.owner.id]);
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["identifier", "role"]],
      ["an unknown role", (v) => ({ body: { identifier: v.username, role: "superuser" } }), ["role"]],
      ["an empty role", (v) => ({ body: { identifier: v.username, role: "" } }), ["role"]],
      ["a missing role", (v) => ({ body: { identifier: v.username } }), ["role"]],
      ["a numeric role", (v) => ({ body: { identifier: v.username, role: 1 } }), ["role"]],
      ["a 2-character identifier", () => ({ body: { identifier: "ab", role: "observer" } }), ["identifier"]],
      ["a numeric identifier", () => ({ body: { identifier: 12345, role: "observer" } }), ["identifier"]],
      ["a 255-character identifier", () => ({ body: { identifier: longText(255), role: "observer" } }), ["identifier"]],
      [
        "username and email at once",
        (v) => ({ body: { username: v.username, email: `${v.username}@example.com`, role: "observer" } }),
        ["username", "email"],
      ],
      [
        "identifier and username at once",
        (v) => ({ body: { identifier: v.username, username: v.username, role: "observer" } }),
        ["identifier", "username"],
      ],
      ["a 2-character username", () => ({ body: { username: "ab", role: "observer" } }), ["username"]],
      ["a numeric email", () => ({ body: { email: 12345, role: "observer" } }), ["email"]],
    ],
  };
}

function updateMemberTable(): Table {
  let namespace: SeededNamespace;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      const member = await seedMember(namespace, "observer");
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { tenant: namespace.tenantId, uid: member.id },
        values: {},
        verify: async () => {
          const members = (await namespaceOf(namespace)).members as { id: string; role: string }[];
          expect(members.find((item) => item.id === member.id)?.role).toBe("observer");
        },
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["role"]],
      ["an unknown role", () => ({ body: { role: "root" } }), ["role"]],
      ["a numeric role", () => ({ body: { role: 3 } }), ["role"]],
      ["a null role", () => ({ body: { role: null } }), ["role"]],
      ["an upper-case role", () => ({ body: { role: "OPERATOR" } }), ["role"]],
    ],
  };
}

function setSessionRecordTable(): Table {
  let namespace: SeededNamespace;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      const on = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
        token: namespace.owner.tenantToken,
        body: { session_record: true },
      });
      expect(on.status).toBe(200);
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { tenant: namespace.tenantId },
        values: {},
        verify: async () => {
          const read = await call("GET", "/api/users/security", { token: namespace.owner.tenantToken });
          expect(read.body).toBe(true);
        },
      };
    },
    cases: [
      ["a string", () => ({ body: { session_record: "false" } }), ["session_record"]],
      ["a number", () => ({ body: { session_record: 0 } }), ["session_record"]],
      ["null", () => ({ body: { session_record: null } }), ["session_record"]],
    ],
  };
}

function createApiKeyTable(): Table {
  let namespace: SeededNamespace;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      return {
        credentials: { token: namespace.owner.tenantToken },
        values: {},
        verify: async () => expect(await apiKeysOf(namespace)).toEqual([]),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["expires_at", "name"]],
      ["a 2-character name", () => ({ body: { name: "ab", expires_at: -1 } }), ["name"]],
      ["a 21-character name", () => ({ body: { name: longText(21), expires_at: -1 } }), ["name"]],
      ["a numeric name", () => ({ body: { name: 12345, expires_at: -1 } }), ["name"]],
      ["expires_at 7", () => ({ body: { name: uniqueName("k"), expires_at: 7 } }), ["expires_at"]],
      ["expires_at as a string", () => ({ body: { name: uniqueName("k"), expires_at: "30" } }), ["expires_at"]],
      ["an unknown role", () => ({ body: { name: uniqueName("k"), expires_at: -1, role: "root" } }), ["role"]],
      ["a key that is not a uuid", () => ({ body: { name: uniqueName("k"), expires_at: -1, key: "abc" } }), ["key"]],
      [
        "a key that is a version 1 uuid",
        () => ({ body: { name: uniqueName("k"), expires_at: -1, key: "d9428888-122b-11e1-b85c-61cd3cbb3210" } }),
        ["key"],
      ],
    ],
  };
}

function updateApiKeyTable(): Table {
  let namespace: SeededNamespace;
  let before: string[];
  return {
    setup: async () => {
      namespace = await seedNamespace();
      const name = uniqueName("k");
      const created = await call("POST", "/api/namespaces/api-key", {
        token: namespace.owner.tenantToken,
        body: { name, expires_at: -1, role: "observer" },
      });
      expect(created.status).toBe(200);
      before = await apiKeysOf(namespace);
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { name },
        values: {},
        verify: async () => expect(await apiKeysOf(namespace)).toEqual(before),
      };
    },
    cases: [
      ["a 2-character name", () => ({ body: { name: "ab" } }), ["name"]],
      ["a numeric name", () => ({ body: { name: 5 } }), ["name"]],
      ["a name with a slash", () => ({ body: { name: "a/b/c" } }), ["name"]],
      ["an unknown role", () => ({ body: { role: "root" } }), ["role"]],
      ["a valid name with an unknown role", () => ({ body: { name: uniqueName("k"), role: "root" } }), ["role"]],
    ],
  };
}

function adminCommandTable(): Table {
  const secret = () => readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();
  const username = uniqueName("cli");
  return {
    setup: async () => {
      // The server makes the secret on first use: a wrong one first, so that the file exists.
      const wrong = await call("POST", "/internal/admin", { headers: { "x-internal-secret": "wrong" }, body: {} });
      expect(wrong.status).toBe(401);
      return {
        credentials: { headers: { "x-internal-secret": secret() } },
        values: { username },
        verify: async () => expect(await accountExists(checker, username)).toBe(false),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["args"]],
      ["args that are a string", () => ({ body: { args: "help" } }), ["args"]],
      [
        "a numeric argument in a user create",
        (v) => ({ body: { args: ["user", "create", v.username, 12345, `${v.username}@example.com`] } }),
        ["args.3"],
      ],
      ["21 arguments", () => ({ body: { args: Array.from({ length: 21 }, () => "x") } }), ["args"]],
      ["a 1001-character argument", () => ({ body: { args: [longText(1001)] } }), ["args.0"]],
    ],
  };
}

function listNamespacesTable(): Table {
  const filter = (value: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString("base64"));
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["page=abc", () => ({ query: "page=abc" }), ["page"]],
      ["page beyond the safe integers", () => ({ query: "page=9007199254740992" }), ["page"]],
      ["per_page=0", () => ({ query: "per_page=0" }), ["per_page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=1.5", () => ({ query: "per_page=1.5" }), ["per_page"]],
      ["page=0 and per_page=0", () => ({ query: "page=0&per_page=0" }), ["page", "per_page"]],
      ["a filter that is not base64", () => ({ query: "filter=%25%25%25" }), ["filter"]],
      ["a filter that is not JSON", () => ({ query: `filter=${Buffer.from("{oops").toString("base64")}` }), ["filter"]],
      ["a filter that is not an array", () => ({ query: `filter=${filter({ name: "x" })}` }), ["filter"]],
      [
        "a filter with a bad operator",
        () => ({
          query: `filter=${filter([{ type: "property", params: { name: "name", operator: "~", value: "x" } }])}`,
        }),
        ["filter"],
      ],
      [
        "a filter on an unknown property",
        () => ({
          query: `filter=${filter([{ type: "property", params: { name: "owner", operator: "eq", value: "x" } }])}`,
        }),
        null,
      ],
      [
        "a filter with 21 conditions",
        () => ({
          query: `filter=${filter(Array.from({ length: 21 }, () => ({ type: "operator", params: { name: "and" } })))}`,
        }),
        ["filter"],
      ],
    ],
  };
}

function listApiKeysTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["an unknown sort_by", () => ({ query: "sort_by=key_hash" }), ["sort_by"]],
      ["an unknown order_by", () => ({ query: "order_by=sideways" }), ["order_by"]],
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=abc", () => ({ query: "per_page=abc" }), ["per_page"]],
    ],
  };
}

/** A table for every operation with a body or query: these, and each resource's in ./bad-input/*.ts. */
const coreTables: Record<string, () => Table> = {
  login: loginTable,
  authUser: loginTable,
  registerUser: registerTable,
  updateUser: () => updateUserTable("updateUser"),
  updateUserData: () => updateUserTable("updateUserData"),
  updateUserPassword: updateUserPasswordTable,
  createNamespace: createNamespaceTable,
  editNamespace: editNamespaceTable,
  addMember: addMemberTable,
  updateMember: updateMemberTable,
  setSessionRecord: setSessionRecordTable,
  createApiKey: createApiKeyTable,
  updateApiKey: updateApiKeyTable,
  adminCommand: adminCommandTable,
  listNamespaces: listNamespacesTable,
  listApiKeys: listApiKeysTable,
};

const resourceModules = import.meta.glob<{ tables: Record<string, () => Table> }>("./bad-input/*.ts", { eager: true });
const tables: Record<string, () => Table> = Object.assign(
  {},
  coreTables,
  ...Object.values(resourceModules).map((module) => module.tables),
);

/** Cases every operation with a body gets: a body that is not an object, not JSON, or holds a NUL. */
const bodyCases: Case[] = [
  ["a JSON array as the body", () => ({ rawBody: "[]" }), ["body"]],
  ["a JSON string as the body", () => ({ rawBody: '"text"' }), ["body"]],
  ["null as the body", () => ({ rawBody: "null" }), ["body"]],
  ["a body that is not JSON", () => ({ rawBody: "{not json" }), null],
  ["a body with a NUL character", () => ({ rawBody: '{"name":"a\\u0000b","username":"a\\u0000b"}' }), null],
];

const withInput = operations.filter((operation) => operation.body || operation.query);

function urlOf(operation: Operation, params: Record<string, string> = {}, query?: string) {
  const url = operation.path.replace(/\{([\w-]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operation.id}: no value for path parameter '${name}'`);
    return encodeURIComponent(value);
  });
  return query ? `${url}?${query}` : url;
}

it("has a bad-input table for every operation with a body or a query", () => {
  expect(withInput.length).toBeGreaterThan(0);
  expect(withInput.map((operation) => operation.id).filter((id) => !tables[id])).toEqual([]);
});

for (const operation of withInput) {
  const table = tables[operation.id]?.();
  if (!table) continue;
  const cases = operation.body ? [...table.cases, ...bodyCases] : table.cases;
  describe(`${operation.method} ${operation.path} (${operation.id})`, () => {
    let context: Context;
    beforeAll(async () => {
      context = await table.setup();
    });

    it.each(cases)("refuses %s with 400", async (_label, input, fields) => {
      const { body, rawBody, query = context.query } = input(context.values);
      const response = await call(operation.method, urlOf(operation, context.params, query), {
        ...context.credentials,
        body,
        rawBody,
        headers: {
          ...context.credentials.headers,
          ...(rawBody === undefined ? {} : { "content-type": "application/json" }),
        },
      });
      expect(response.status, response.text).toBe(400);
      if (fields === null) {
        expect(response.body).toEqual({ message: expect.any(String) });
      } else {
        expect(fieldNamesOf(response, operation)).toEqual([...fields].sort());
      }
    });

    it("wrote nothing for any refused request", async () => {
      await context.verify();
    });
  });
}

describe("path parameters", () => {
  let namespace: SeededNamespace;
  beforeAll(async () => {
    namespace = await seedNamespace();
  });

  it.each([
    ["GET", "/api/namespaces/not-a-uuid", "tenant"],
    ["PUT", "/api/users/security/not-a-uuid", "tenant"],
    ["PATCH", `/api/namespaces/{tenant}/members/not-a-uuid`, "uid"],
    ["GET", "/api/token/12345", "tenant"],
    ["POST", "/api/user/not-a-uuid/update_password", "uid"],
    ["PUT", "/api/user/mfa/reset/not-a-uuid", "user-id"],
  ])("%s %s answers 400 naming %s", async (method, url, field) => {
    const response = await call(method, url.replace("{tenant}", namespace.tenantId), {
      token: namespace.owner.tenantToken,
      body: method === "GET" ? undefined : { role: "observer", session_record: true },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: expect.any(String),
      fields: [{ field, message: expect.any(String) }],
    });
  });

  it("a bad user id on the deprecated user routes is a 400 with the array of field names", async () => {
    const user = await seedUser();
    for (const [url, body] of [
      ["/api/users/not-a-uuid/data", { name: "Some Name" }],
      ["/api/users/not-a-uuid/password", { current_password: user.password, new_password: "new-secret" }],
    ] as const) {
      const response = await call("PATCH", url, { token: user.token, body });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(["id"]);
    }
  });
});

describe("large numbers", () => {
  it("answers the largest safe page with an empty list, not a 500", async () => {
    const namespace = await seedNamespace();
    const token = await tokenFor(namespace.owner, namespace.tenantId);
    for (const url of [
      "/api/namespaces?page=9007199254740991&per_page=100",
      "/api/namespaces/api-key?page=9007199254740991&per_page=100",
    ]) {
      const response = await call("GET", url, { token });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual([]);
    }
  });
});
