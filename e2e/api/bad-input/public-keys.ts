import { expect } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { base64Of, randomEd25519Line, wireString } from "@/testing/ssh-keys";
import type { Case, Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);

async function keysOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/sshkeys/public-keys?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list public keys: ${response.status} ${response.text}`);
  return response.body;
}

/** A namespace with one key (tags filter), for the operations on a key. */
function withKey(): () => Promise<{ namespace: SeededNamespace; fingerprint: string; before: unknown }> {
  return async () => {
    const namespace = await seedNamespace();
    const created = await call("POST", "/api/sshkeys/public-keys", {
      token: namespace.owner.tenantToken,
      body: { data: base64Of(randomEd25519Line()), name: "key", username: ".*", filter: { tags: ["prod", "eu-west"] } },
    });
    expect(created.status, created.text).toBe(200);
    return { namespace, fingerprint: created.body.fingerprint, before: await keysOf(namespace) };
  };
}

const validKey = () => ({
  data: base64Of(randomEd25519Line()),
  name: "key",
  username: ".*",
  filter: { hostname: ".*" },
});
const dsaLine = `ssh-dss ${Buffer.concat(["ssh-dss", "p", "q", "g", "y"].map((part) => wireString(part))).toString("base64")} x`;
const mismatchedLine = `ssh-rsa ${randomEd25519Line().split(" ")[1]} x`;

/** Bad names, usernames and filters, shared by create and update. */
const ruleCases: Case[] = [
  ["a filter with neither hostname nor tags", () => ({ body: { ...validKey(), filter: {} } }), ["filter"]],
  [
    "a filter with both hostname and tags",
    () => ({ body: { ...validKey(), filter: { hostname: ".*", tags: ["prod"] } } }),
    ["filter"],
  ],
  ["a filter that is a string", () => ({ body: { ...validKey(), filter: ".*" } }), ["filter"]],
  ["an empty hostname regex", () => ({ body: { ...validKey(), filter: { hostname: "" } } }), ["filter.hostname"]],
  [
    "a hostname regex with a lookahead",
    () => ({ body: { ...validKey(), filter: { hostname: "^web(?!-prod)" } } }),
    ["filter.hostname"],
  ],
  ["empty tags", () => ({ body: { ...validKey(), filter: { tags: [] } } }), ["filter.tags"]],
  ["4 tags", () => ({ body: { ...validKey(), filter: { tags: ["aaa", "bbb", "ccc", "ddd"] } } }), ["filter.tags"]],
  ["duplicate tags", () => ({ body: { ...validKey(), filter: { tags: ["aaa", "aaa"] } } }), ["filter.tags"]],
  ["a 2-character tag", () => ({ body: { ...validKey(), filter: { tags: ["ab"] } } }), ["filter.tags.0"]],
  ["a tag with a slash", () => ({ body: { ...validKey(), filter: { tags: ["ok-tag", "a/b"] } } }), ["filter.tags.1"]],
  ["a 256-character tag", () => ({ body: { ...validKey(), filter: { tags: [longText(256)] } } }), ["filter.tags.0"]],
  ["a username regex with a backreference", () => ({ body: { ...validKey(), username: "(a)\\1" } }), ["username"]],
  ["an unbalanced username regex", () => ({ body: { ...validKey(), username: "(root" } }), ["username"]],
  ["a 513-character username regex", () => ({ body: { ...validKey(), username: longText(513) } }), ["username"]],
  ["an empty username regex", () => ({ body: { ...validKey(), username: "" } }), ["username"]],
  ["a numeric username", () => ({ body: { ...validKey(), username: 5 } }), ["username"]],
  [
    "bad regexes in username and hostname",
    () => ({ body: { ...validKey(), username: "a++", filter: { hostname: "(?<=x)" } } }),
    ["filter.hostname", "username"],
  ],
  ["an empty name", () => ({ body: { ...validKey(), name: "" } }), ["name"]],
  ["a blank name", () => ({ body: { ...validKey(), name: "   " } }), ["name"]],
  ["a 256-character name", () => ({ body: { ...validKey(), name: longText(256) } }), ["name"]],
];

function createPublicKeyTable(): Table {
  let namespace: SeededNamespace;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      return {
        credentials: { token: namespace.owner.tenantToken },
        values: {},
        verify: async () => expect(await keysOf(namespace)).toEqual([]),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["data", "filter", "name", "username"]],
      ["no data", () => ({ body: { ...validKey(), data: undefined } }), ["data"]],
      ["data that is not base64", () => ({ body: { ...validKey(), data: "ssh-ed25519 AAAA" } }), ["data"]],
      ["data that is an unencoded key line", () => ({ body: { ...validKey(), data: randomEd25519Line() } }), ["data"]],
      ["data of a DSA key", () => ({ body: { ...validKey(), data: base64Of(dsaLine) } }), ["data"]],
      [
        "data whose blob is of another type",
        () => ({ body: { ...validKey(), data: base64Of(mismatchedLine) } }),
        ["data"],
      ],
      [
        "data of a private key",
        () => ({ body: { ...validKey(), data: base64Of("-----BEGIN OPENSSH PRIVATE KEY-----") } }),
        ["data"],
      ],
      ["data over 16384 characters", () => ({ body: { ...validKey(), data: "A".repeat(16388) } }), ["data"]],
      ["numeric data", () => ({ body: { ...validKey(), data: 12 } }), ["data"]],
      ...ruleCases,
    ],
  };
}

function updatePublicKeyTable(): Table {
  const prepare = withKey();
  return {
    setup: async () => {
      const { namespace, fingerprint, before } = await prepare();
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { fingerprint },
        values: {},
        verify: async () => expect(await keysOf(namespace)).toEqual(before),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["filter", "name", "username"]],
      ["no filter", () => ({ body: { name: "key", username: ".*" } }), ["filter"]],
      ...ruleCases,
    ],
  };
}

function addPublicKeyTagTable(): Table {
  const prepare = withKey();
  return {
    setup: async () => {
      const { namespace, fingerprint, before } = await prepare();
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { fingerprint },
        values: {},
        verify: async () => expect(await keysOf(namespace)).toEqual(before),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["tag"]],
      ["a 2-character tag", () => ({ body: { tag: "ab" } }), ["tag"]],
      ["a 256-character tag", () => ({ body: { tag: longText(256) } }), ["tag"]],
      ["a tag with a colon", () => ({ body: { tag: "env:prod" } }), ["tag"]],
      ["a tag with an @", () => ({ body: { tag: "root@host" } }), ["tag"]],
      ["a numeric tag", () => ({ body: { tag: 123 } }), ["tag"]],
      ["an array of tags", () => ({ body: { tag: ["prod"] } }), ["tag"]],
    ],
  };
}

function updatePublicKeyTagsTable(): Table {
  const prepare = withKey();
  return {
    setup: async () => {
      const { namespace, fingerprint, before } = await prepare();
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { fingerprint },
        values: {},
        verify: async () => expect(await keysOf(namespace)).toEqual(before),
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["tags"]],
      ["no tags", () => ({ body: { tags: [] } }), ["tags"]],
      ["4 tags", () => ({ body: { tags: ["aaa", "bbb", "ccc", "ddd"] } }), ["tags"]],
      ["duplicate tags", () => ({ body: { tags: ["aaa", "bbb", "aaa"] } }), ["tags"]],
      ["a 2-character tag", () => ({ body: { tags: ["aaa", "ab"] } }), ["tags.1"]],
      ["a tag with an ampersand", () => ({ body: { tags: ["a&b"] } }), ["tags.0"]],
      ["a string instead of an array", () => ({ body: { tags: "prod" } }), ["tags"]],
    ],
  };
}

function listPublicKeysTable(): Table {
  const filter = (value: unknown) => encodeURIComponent(Buffer.from(JSON.stringify(value)).toString("base64"));
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=abc", () => ({ query: "per_page=abc" }), ["per_page"]],
      ["a filter that is not base64", () => ({ query: "filter=%25%25" }), ["filter"]],
      ["a filter that is not an array", () => ({ query: `filter=${filter({ name: "x" })}` }), ["filter"]],
      [
        "a filter on a property that is not listed (data)",
        () => ({
          query: `filter=${filter([{ type: "property", params: { name: "data", operator: "contains", value: "x" } }])}`,
        }),
        null,
      ],
      [
        "a filter on tenant_id",
        () => ({
          query: `filter=${filter([{ type: "property", params: { name: "tenant_id", operator: "eq", value: "x" } }])}`,
        }),
        null,
      ],
    ],
  };
}

function authSshPublicKeyTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      const device = await seedDevice(namespace);
      // Nothing is written by this operation: there is nothing to check afterwards.
      return { credentials: { token: device.token }, values: {}, verify: async () => {} };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["data", "fingerprint"]],
      [
        "a fingerprint that is not hex pairs",
        () => ({ body: { fingerprint: uniqueName("f"), data: "x" } }),
        ["fingerprint"],
      ],
      [
        "an upper-case fingerprint",
        () => ({ body: { fingerprint: "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99", data: "x" } }),
        ["fingerprint"],
      ],
      [
        "a SHA256 fingerprint",
        () => ({ body: { fingerprint: "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU", data: "x" } }),
        ["fingerprint"],
      ],
      [
        "empty data",
        () => ({ body: { fingerprint: "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99", data: "" } }),
        ["data"],
      ],
      [
        "data over 4096 characters",
        () => ({ body: { fingerprint: "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99", data: longText(4097) } }),
        ["data"],
      ],
      [
        "numeric data",
        () => ({ body: { fingerprint: "aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99", data: 42 } }),
        ["data"],
      ],
    ],
  };
}

export const tables: Record<string, () => Table> = {
  createPublicKey: createPublicKeyTable,
  updatePublicKey: updatePublicKeyTable,
  addPublicKeyTag: addPublicKeyTagTable,
  updatePublicKeyTags: updatePublicKeyTagsTable,
  listPublicKeys: listPublicKeysTable,
  authSshPublicKey: authSshPublicKeyTable,
};
