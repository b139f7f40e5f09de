import { expect } from "vitest";
import { call } from "@/testing/client";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { type Case, createTable, type Table } from "../support/bad-input";

const pem = (kind: string) => `-----BEGIN ${kind}-----\nAAAA\n-----END ${kind}-----\n`;
// Never an address off this machine, even refused: a service without the checks would dial it.
const valid = () => ({ address: "127.0.0.1", port: 1 });
const tls = () => ({ ca: pem("CERTIFICATE"), cert: pem("CERTIFICATE"), key: pem("PRIVATE KEY") });

async function connectorsOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/connector?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`list connectors: ${response.status} ${response.text}`);
  return response.body;
}

const bodyCases: Case[] = [
  ["an address with a space", () => ({ body: { ...valid(), address: "engine example" } }), ["address"]],
  ["an address with a scheme", () => ({ body: { ...valid(), address: "http://engine" } }), ["address"]],
  ["an address with a port", () => ({ body: { ...valid(), address: "engine:2375" } }), ["address"]],
  ["an empty address", () => ({ body: { ...valid(), address: "" } }), ["address"]],
  ["a port past 65535", () => ({ body: { ...valid(), port: 65536 } }), ["port"]],
  ["a negative port", () => ({ body: { ...valid(), port: -1 } }), ["port"]],
  ["a port as a string", () => ({ body: { ...valid(), port: "2375" } }), ["port"]],
  ["enable as a string", () => ({ body: { ...valid(), enable: "true" } }), ["enable"]],
  [
    "TLS without its key",
    () => ({ body: { ...valid(), secure: true, tls: { ...tls(), key: undefined } } }),
    ["tls.key"],
  ],
  [
    "TLS material that is no PEM",
    () => ({ body: { ...valid(), secure: true, tls: { ...tls(), ca: "x" } } }),
    ["tls.ca"],
  ],
  [
    "PEM text that does not parse",
    () => ({ body: { ...valid(), secure: true, tls: tls() } }),
    ["tls.ca", "tls.cert", "tls.key"],
  ],
  ["secure without TLS material", () => ({ body: { ...valid(), secure: true } }), ["tls"]],
];

/** A namespace with one connector, for the operations on a connector. */
async function withConnector() {
  const namespace = await seedNamespace();
  const created = await call("POST", "/api/connector", {
    token: namespace.owner.tenantToken,
    body: { ...valid(), enable: false },
  });
  expect(created.status, created.text).toBe(200);
  const before = await connectorsOf(namespace);
  return {
    credentials: { token: namespace.owner.tenantToken },
    params: { uid: created.body.uid as string },
    values: {},
    verify: async () => expect(await connectorsOf(namespace)).toEqual(before),
  };
}

export const tables: Record<string, () => Table> = {
  createConnector: createTable(connectorsOf, [
    ["an empty body", () => ({ body: {} }), ["address", "port"]],
    ...bodyCases,
  ]),
  updateConnector: () => ({ setup: withConnector, cases: bodyCases }),
  listConnectors: () => ({
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["enable that is no boolean", () => ({ query: "enable=yes" }), ["enable"]],
      ["per_page past 100", () => ({ query: "per_page=101" }), ["per_page"]],
    ],
  }),
};
