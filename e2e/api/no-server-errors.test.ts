import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/lib/api";
import type { Access, Operation } from "@/lib/http/operation";
import { type ApiResponse, call } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { seedDevice } from "@/testing/seeds/devices";
import { seedNamespace } from "@/testing/seeds/namespaces";

// Every operation of the API, with generated paths, queries and bodies, most of them bad: no
// input may reach a 5xx, and every refusal is JSON that says what is wrong. A server of its own,
// so that what the generated requests do (rate limits, lockouts, new rows) stays here. A
// failure reports the first request that broke the rule (no shrinking: each try is a request).

let server: OwnServer;
let credentials: Record<Access["kind"], Record<string, string>>;

beforeAll(async () => {
  server = await startOwnServer();
  const baseUrl = server.url;
  const namespace = await seedNamespace(undefined, { baseUrl });
  const device = await seedDevice(namespace, { baseUrl, status: "accept" });
  // The server makes its internal secret on first use.
  await call("POST", "/internal/admin", { baseUrl, headers: { "x-internal-secret": "wrong" }, body: {} });
  const secret = readFileSync(path.join(server.data.DATA_DIR, "internal.secret"), "utf8").trim();
  const owner = { authorization: `Bearer ${namespace.owner.tenantToken}` };
  credentials = {
    public: {},
    user: owner,
    principal: owner,
    tenant: owner,
    internal: { "x-internal-secret": secret },
    device: { authorization: `Bearer ${device.token}` },
  };
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/**
 * Percent-encodings that decode to nothing valid, and other path segments parsers trip on
 * (not `.` or `..`, even encoded: clients resolve them before sending, out of /api).
 */
const brokenSegment = fc.constantFrom(
  "%ff",
  "%c0%af",
  "%ED%A0%80",
  "%e2%82",
  "%",
  "%%",
  "%zz",
  "%00",
  "%2e%2e%2f",
  "a%",
);
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }));
const segment = fc.oneof(
  brokenSegment,
  text.map(encodeURIComponent),
  fc.uuid(),
  hex64,
  fc.integer().map(String),
  fc.constantFrom("accept", "reject", "pending", "unused", "web"),
);

/** Dates JavaScript reads and PostgreSQL may not: year 0, negative and five-digit years. */
const oddDate = fc.oneof(
  fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom("0000-01-01", "-000001-01-01T00:00:00Z", "+275760-09-13T00:00:00Z", "2024-02-30", "yesterday"),
);
const filterValue = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), oddDate, fc.constant(null));
const filterItem = fc.oneof(
  fc.record({
    type: fc.constant("property"),
    params: fc.record({
      name: fc.oneof(
        fc.constantFrom("name", "uid", "online", "tags", "last_seen", "created_at", "status", "info.version"),
        fc.constantFrom("max_devices", "fingerprint", "username", "tenant_id", "__proto__", "constructor"),
        text,
      ),
      operator: fc.oneof(fc.constantFrom("contains", "eq", "ne", "gt", "lt", "bool"), text),
      value: filterValue,
    }),
  }),
  fc.record({
    type: fc.constant("operator"),
    params: fc.record({ name: fc.oneof(fc.constantFrom("and", "or"), text) }),
  }),
  fc.jsonValue(),
);
const filter = fc.oneof(
  fc.array(filterItem, { maxLength: 25 }).map((items) => Buffer.from(JSON.stringify(items)).toString("base64")),
  text,
  brokenSegment,
);
const queryValue = fc.oneof(text, fc.integer().map(String), fc.double().map(String), oddDate, brokenSegment);
const queryName = fc.oneof(
  fc.constantFrom("page", "per_page", "order_by", "sort_by", "status", "filter", "key", "name", "uid"),
  text,
);
/** A query string, made of well-encoded pairs and raw broken encodings. */
const query = fc
  .tuple(
    fc.array(fc.tuple(queryName, fc.oneof(queryValue, filter)), { maxLength: 6 }),
    fc.array(brokenSegment, { maxLength: 2 }),
  )
  .map(([pairs, raw]) => {
    const encoded = pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    return [...encoded, ...raw.map((item) => `x=${item}`)].join("&");
  });

/** JSON nested `depth` deep around a NUL escape: a recursive walk of it overflows the stack. */
const deeplyNested = fc
  .tuple(fc.integer({ min: 1_000, max: 150_000 }), fc.boolean())
  .map(([depth, asObjects]) =>
    asObjects
      ? `${'{"a":'.repeat(depth)}"\\u0000"${"}".repeat(depth)}`
      : `${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}`,
  );
const loneSurrogate = fc.constantFrom('{"name":"\\ud800"}', '{"tag":"a\\udfffb"}', '["\\ud83d"]');
const body = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(
        fc.oneof(
          fc.constantFrom(
            "name",
            "tag",
            "tags",
            "filter",
            "username",
            "password",
            "email",
            "data",
            "role",
            "key",
            "device",
            "settings",
            "identity",
            "info",
            "public_key",
            "tenant_id",
            "hostname",
            "sessions",
            "code",
            "token",
            "uid",
            "expires_at",
            "priority",
            "source_ip",
            "action",
            "active",
            "message",
            "width",
            "height",
          ),
          text,
        ),
        fc.oneof(fc.jsonValue(), filterValue, oddDate),
        { maxKeys: 8 },
      )
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: fc.oneof(text, fc.constantFrom("{", "[1,", '{"a":1,}', "\u0000", "null", "")) },
);

const pathOf = (operation: Operation, segments: string[]) => {
  let index = 0;
  return operation.path.replace(/\{[^}]+\}/g, () => segments[index++] ?? "x");
};
const parameterCount = (operation: Operation) => (operation.path.match(/\{[^}]+\}/g) ?? []).length;

function assertAnswered(response: ApiResponse, request: string) {
  expect(response.status, `${request} -> ${response.status} ${response.text.slice(0, 300)}`).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get("content-type"), request).toMatch(/^application\/json/);
    const refusal = response.body as unknown;
    // User registration and updates answer with the array of offending field names.
    const isFieldNames = Array.isArray(refusal) && refusal.every((item) => typeof item === "string");
    if (!isFieldNames) expect(refusal, request).toEqual(expect.objectContaining({ message: expect.any(String) }));
  }
}

const send = (operation: Operation, path: string, rawBody: string | undefined, withCredentials: boolean) =>
  call(operation.method, path, {
    baseUrl: server.url,
    headers: {
      ...(withCredentials ? credentials[operation.access.kind] : {}),
      ...(rawBody === undefined ? {} : { "content-type": "application/json" }),
    },
    rawBody: operation.method === "GET" ? undefined : rawBody,
  });

// Each run is one request: 12 per operation keep the sweep under a minute.
const runs = { numRuns: 12, endOnFailure: true };

describe("no input reaches a 5xx", () => {
  it.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    "%s",
    async (_name, operation) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: parameterCount(operation), maxLength: parameterCount(operation) }),
          fc.option(query, { nil: undefined }),
          fc.option(body, { nil: undefined }),
          fc.boolean(),
          async (segments, queryString, rawBody, withCredentials) => {
            const target = `${pathOf(operation, segments)}${queryString ? `?${queryString}` : ""}`;
            const response = await send(operation, target, rawBody, withCredentials);
            assertAnswered(response, `${operation.method} ${target} ${rawBody?.slice(0, 200) ?? ""}`);
          },
        ),
        runs,
      );
    },
    120_000,
  );

  it("answers unknown paths and methods under /api with JSON", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
        async (segments, method) => {
          const target = `/api/${segments.join("/")}`;
          const response = await call(method, target, { baseUrl: server.url, headers: credentials.tenant });
          assertAnswered(response, `${method} ${target}`);
        },
      ),
      { numRuns: 100 },
    );
  });
});
