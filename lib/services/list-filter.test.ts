import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { openTestDatabase } from "@/testing/database";
import type { Database } from "../db";
import { ApiError } from "../errors";
import { type FilterItem, filterQuery } from "../schemas/list-filter";
import { type FilterField, filterToSql } from "./list-filter";
import { createNamespace } from "./namespaces";
import { createUser } from "./users";

type Operator = "contains" | "eq" | "ne" | "gt" | "lt" | "bool";

const prop = (name: string, operator: Operator, value: string | number | boolean | string[]): FilterItem => ({
  type: "property",
  params: { name, operator, value },
});
const op = (name: "and" | "or"): FilterItem => ({ type: "operator", params: { name } });

const fields: Record<string, FilterField> = {
  name: { column: namespaces.name, type: "text" },
  tenant_id: { column: sql`${namespaces.tenantId}::text`, type: "text" },
  created_at: { column: namespaces.createdAt, type: "date" },
  max_devices: { column: namespaces.maxDevices, type: "number" },
  session_record: { column: namespaces.sessionRecord, type: "boolean" },
};

/**
 * The rows: names with LIKE wildcards and a backslash (the service does not restrict names; the
 * API schema does) next to names those characters would match as wildcards.
 */
const rows: { name: string; createdAt: string; maxDevices: number; sessionRecord?: boolean }[] = [
  { name: "alpha", createdAt: "2024-01-01T00:00:00Z", maxDevices: 1 },
  { name: "alphabet", createdAt: "2024-02-01T00:00:00Z", maxDevices: 5 },
  { name: "beta", createdAt: "2024-03-01T00:00:00Z", maxDevices: 10, sessionRecord: true },
  { name: "gamma-ray", createdAt: "2024-04-01T00:00:00Z", maxDevices: -1 },
  { name: "ab_cd", createdAt: "2024-05-01T00:00:00Z", maxDevices: 3 },
  { name: "abxcd", createdAt: "2024-05-02T00:00:00Z", maxDevices: 3 },
  { name: "p%q", createdAt: "2024-05-03T00:00:00Z", maxDevices: 3 },
  { name: "pxyzq", createdAt: "2024-05-04T00:00:00Z", maxDevices: 3 },
  { name: "back\\slash", createdAt: "2024-05-05T00:00:00Z", maxDevices: 3 },
  { name: "backxslash", createdAt: "2024-05-06T00:00:00Z", maxDevices: 3 },
];
const allNames = rows.map((row) => row.name).sort();
const except = (...names: string[]) => allNames.filter((name) => !names.includes(name));

let database: Database;
const tenantOf: Record<string, string> = {};

async function select(items: FilterItem[] | undefined): Promise<string[]> {
  const found = await database.db
    .select({ name: namespaces.name })
    .from(namespaces)
    .where(filterToSql(items, fields))
    .orderBy(asc(namespaces.name));
  return found.map((row) => row.name).sort();
}

function expectBadRequest(items: FilterItem[], fieldMap: Record<string, FilterField>, message: RegExp) {
  let thrown: unknown;
  try {
    filterToSql(items, fieldMap);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  expect((thrown as ApiError).status).toBe(400);
  expect((thrown as ApiError).message).toMatch(message);
}

beforeAll(async () => {
  database = await openTestDatabase();
  const owner = await createUser(database.db, {
    name: "Filter Owner",
    username: "filter-owner",
    email: "filter-owner@example.com",
    password: "secret-pass",
  });
  for (const row of rows) {
    const namespace = await createNamespace(database.db, owner.id, { name: row.name });
    if (!namespace) throw new Error("no namespace");
    tenantOf[row.name] = namespace.tenant_id;
    await database.db
      .update(namespaces)
      .set({
        createdAt: new Date(row.createdAt),
        maxDevices: row.maxDevices,
        sessionRecord: row.sessionRecord ?? false,
      })
      .where(eq(namespaces.tenantId, namespace.tenant_id));
  }
});

afterAll(async () => {
  await database?.close();
});

describe("filterToSql on namespaces", () => {
  const cases: [string, FilterItem[] | undefined, string[]][] = [
    ["no filter", undefined, allNames],
    ["an empty filter", [], allNames],
    ["contains", [prop("name", "contains", "alp")], ["alpha", "alphabet"]],
    ["contains, any case", [prop("name", "contains", "ALP")], ["alpha", "alphabet"]],
    ["contains nothing that matches", [prop("name", "contains", "zeta")], []],
    ["contains '_' literally", [prop("name", "contains", "_")], ["ab_cd"]],
    ["contains 'b_c' literally", [prop("name", "contains", "b_c")], ["ab_cd"]],
    ["contains '%' literally", [prop("name", "contains", "%")], ["p%q"]],
    ["contains 'p%q' literally", [prop("name", "contains", "p%q")], ["p%q"]],
    ["contains a backslash literally", [prop("name", "contains", "\\")], ["back\\slash"]],
    ["contains 'k\\s' literally", [prop("name", "contains", "k\\s")], ["back\\slash"]],
    ["contains a quote", [prop("name", "contains", "'; drop table namespaces; --")], []],
    ["eq", [prop("name", "eq", "alpha")], ["alpha"]],
    ["eq is exact", [prop("name", "eq", "ALPHA")], []],
    ["eq '%' is not a pattern", [prop("name", "eq", "%")], []],
    ["ne", [prop("name", "ne", "alpha")], except("alpha")],
    [
      "gt on created_at",
      [prop("created_at", "gt", "2024-04-15T00:00:00Z")],
      except("alpha", "alphabet", "beta", "gamma-ray"),
    ],
    ["lt on created_at", [prop("created_at", "lt", "2024-02-15")], ["alpha", "alphabet"]],
    ["lt on created_at is strict", [prop("created_at", "lt", "2024-01-01T00:00:00Z")], []],
    ["eq on created_at", [prop("created_at", "eq", "2024-03-01T00:00:00.000Z")], ["beta"]],
    [
      "gt on created_at, with a time-zone offset",
      [prop("created_at", "gt", "2024-03-31T23:59:59+00:00")],
      except("alpha", "alphabet", "beta"),
    ],
    ["gt on a number", [prop("max_devices", "gt", 4)], ["alphabet", "beta"]],
    ["lt on a number given as text", [prop("max_devices", "lt", "1")], ["gamma-ray"]],
    ["eq on a number", [prop("max_devices", "eq", 10)], ["beta"]],
    ["bool", [prop("session_record", "bool", true)], ["beta"]],
    ["bool false", [prop("session_record", "bool", false)], except("beta")],
    ["eq on a boolean, as text", [prop("session_record", "eq", "true")], ["beta"]],
    ["ne on a boolean", [prop("session_record", "ne", true)], except("beta")],
    ["eq on the tenant id", [prop("tenant_id", "eq", "TENANT:beta")], ["beta"]],
    [
      "two conditions, and by default",
      [prop("name", "contains", "a"), prop("name", "contains", "b")],
      ["ab_cd", "abxcd", "alphabet", "back\\slash", "backxslash", "beta"],
    ],
    ["and", [prop("name", "contains", "alp"), prop("max_devices", "gt", 2), op("and")], ["alphabet"]],
    ["or", [prop("name", "contains", "alp"), prop("name", "eq", "beta"), op("or")], ["alpha", "alphabet", "beta"]],
    [
      "or, then and with what follows",
      [
        prop("name", "contains", "alp"),
        prop("name", "eq", "beta"),
        op("or"),
        prop("created_at", "lt", "2024-01-15"),
        op("and"),
      ],
      ["alpha"],
    ],
    [
      "or, then a condition left at the end (and)",
      [prop("name", "eq", "alpha"), prop("name", "eq", "beta"), op("or"), prop("session_record", "bool", true)],
      ["beta"],
    ],
    ["an operator alone", [op("or")], allNames],
  ];

  it.each(cases)("%s", async (_, items, expected) => {
    const resolved = items?.map((item) =>
      item.type === "property" && typeof item.params.value === "string" && item.params.value.startsWith("TENANT:")
        ? prop(item.params.name, item.params.operator, tenantOf[item.params.value.slice(7)] ?? "")
        : item,
    );
    expect(await select(resolved)).toEqual([...expected].sort());
  });

  it("refuses an unknown property with 400", () => {
    expectBadRequest([prop("owner_password", "eq", "x")], fields, /unknown property 'owner_password'/);
  });

  it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "refuses %s, a property every object inherits, as unknown with 400",
    (name) => {
      expectBadRequest([prop(name, "eq", "x")], fields, new RegExp(`unknown property '${name}'`));
    },
  );

  it("refuses contains on a field that is not text with 400", () => {
    expectBadRequest([prop("created_at", "contains", "2024")], fields, /contains needs a text property/);
    expectBadRequest([prop("max_devices", "contains", "1")], fields, /contains needs a text property/);
  });

  it("refuses a value of the wrong type with 400", () => {
    expectBadRequest([prop("created_at", "gt", "yesterday")], fields, /bad value for 'created_at'/);
    expectBadRequest([prop("max_devices", "gt", "many")], fields, /bad value for 'max_devices'/);
  });

  it.each([
    "0000-01-01",
    "-000001-01-01T00:00:00Z",
    "+010000-01-01T00:00:00Z",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+01:00",
  ])("refuses the date %s, which PostgreSQL cannot store, with 400", (date) => {
    expectBadRequest([prop("created_at", "gt", date)], fields, /bad value for 'created_at'/);
  });

  it.each([2 ** 31, -(2 ** 31) - 1, 1.5, 1e300, "", " ", true])(
    "refuses the number %j, which is no PostgreSQL integer, with 400",
    (value) => {
      expectBadRequest([prop("max_devices", "eq", value)], fields, /bad value for 'max_devices'/);
    },
  );

  it("takes the first and last storable dates and integers to the database", async () => {
    const edges = [
      prop("created_at", "gt", "0001-01-01T00:00:00Z"),
      prop("created_at", "lt", "9999-12-31T23:59:59Z"),
      prop("max_devices", "gt", -(2 ** 31)),
      prop("max_devices", "lt", 2 ** 31 - 1),
    ];
    expect(await select(edges)).toEqual(allNames);
  });

  it("refuses bool on a field that is not boolean with 400", () => {
    expectBadRequest([prop("name", "bool", true)], fields, /'name' is not a boolean/);
  });

  it("checks every condition, also those after a combining operator", () => {
    expectBadRequest(
      [prop("name", "eq", "alpha"), prop("name", "eq", "beta"), op("or"), prop("nope", "eq", 1)],
      fields,
      /unknown property 'nope'/,
    );
  });
});

describe("filterToSql on tags", () => {
  const tagFields: Record<string, FilterField> = { tags: { column: devices.tags, type: "tags" } };

  beforeAll(async () => {
    const tenantId = tenantOf.alpha ?? "";
    const device = (uid: string, tags: string[]) => ({
      uid,
      tenantId,
      name: uid,
      identity: { mac: "00:00:00:00:00:00" },
      info: { id: "debian", pretty_name: "Debian", version: "1", arch: "amd64", platform: "docker" },
      publicKey: "key",
      keyDigest: uid,
      tags,
    });
    await database.db
      .insert(devices)
      .values([
        device("d-prod", ["prod", "eu"]),
        device("d-dev", ["dev"]),
        device("d-none", []),
        device("d-pct", ["p%"]),
      ]);
  });

  const selectDevices = async (items: FilterItem[]) =>
    (await database.db.select({ uid: devices.uid }).from(devices).where(filterToSql(items, tagFields)))
      .map((row) => row.uid)
      .sort();

  it.each([
    ["contains", [prop("tags", "contains", "prod")], ["d-prod"]],
    ["eq", [prop("tags", "eq", "dev")], ["d-dev"]],
    ["a whole tag only", [prop("tags", "contains", "pro")], []],
    ["'%' literally", [prop("tags", "contains", "p%")], ["d-pct"]],
    ["or", [prop("tags", "eq", "dev"), prop("tags", "eq", "eu"), op("or")], ["d-dev", "d-prod"]],
    ["contains a list: every tag of it", [prop("tags", "contains", ["eu", "prod"])], ["d-prod"]],
    ["contains a list of one", [prop("tags", "contains", ["dev"])], ["d-dev"]],
    ["contains a list some tag of which no device has", [prop("tags", "contains", ["prod", "dev"])], []],
  ] as [string, FilterItem[], string[]][])("%s", async (_, items, expected) => {
    expect(await selectDevices(items)).toEqual(expected);
  });

  it("refuses gt on tags with 400", () => {
    expectBadRequest([prop("tags", "gt", "a")], tagFields, /takes contains or eq/);
  });

  it("refuses a list with any operator but contains, or on a property other than tags, with 400", () => {
    expectBadRequest([prop("tags", "eq", ["prod"])], tagFields, /list of values is only for contains on tags/);
    expectBadRequest([prop("name", "contains", ["alpha"])], fields, /list of values is only for contains on tags/);
  });
});

describe("filterQuery", () => {
  const encodeText = (text: string) => Buffer.from(text).toString("base64");
  const encode = (value: unknown) => encodeText(JSON.stringify(value));
  const issues = (value: string) => {
    const result = filterQuery.safeParse(value);
    expect(result.success).toBe(false);
    return result.error?.issues.map((issue) => issue.message) ?? [];
  };

  it("reads base64 of a JSON array of conditions", () => {
    const items = [prop("name", "contains", "alp"), prop("max_devices", "gt", 3), op("or")];
    expect(filterQuery.parse(encode(items))).toEqual(items);
  });

  it("reads the URL-safe base64 alphabet", () => {
    // '?>' in the JSON gives '/' and '+' in standard base64, '_' and '-' in the URL-safe one.
    const items = [prop("name", "eq", "??>>")];
    const urlSafe = Buffer.from(JSON.stringify(items)).toString("base64url");
    expect(urlSafe).toMatch(/[-_]/);
    expect(filterQuery.parse(urlSafe)).toEqual(items);
  });

  it("takes a missing filter as no filter (the route drops an empty one)", () => {
    expect(filterQuery.parse(undefined)).toBeUndefined();
  });

  it.each([
    ["not base64", "not base64!"],
    ["base64 of text that is not JSON", encodeText("name=alpha")],
    ["base64 of broken JSON", encodeText('[{"type":"property"')],
  ])("refuses %s", (_, value) => {
    expect(issues(value)).toEqual(["filter must be base64 of a JSON array"]);
  });

  it.each([
    ["an object", { type: "property", params: { name: "name", operator: "eq", value: "x" } }],
    ["a string", "alpha"],
    ["null", null],
    ["an unknown item type", [{ type: "sql", params: { name: "name" } }]],
    ["an unknown operator", [{ type: "property", params: { name: "name", operator: "like", value: "x" } }]],
    ["an unknown logical operator", [{ type: "operator", params: { name: "xor" } }]],
    ["an object as value", [{ type: "property", params: { name: "name", operator: "eq", value: { $ne: 1 } } }]],
    ["an empty property name", [{ type: "property", params: { name: "", operator: "eq", value: "x" } }]],
    ["an empty list as value", [prop("tags", "contains", [])]],
    ["a list of numbers as value", [{ type: "property", params: { name: "tags", operator: "contains", value: [1] } }]],
    ["a nested list as value", [{ type: "property", params: { name: "tags", operator: "contains", value: [["a"]] } }]],
    [
      "a list of 21 values",
      [
        prop(
          "tags",
          "contains",
          Array.from({ length: 21 }, (_, index) => `tag${index}`),
        ),
      ],
    ],
    ["more than 20 items", Array.from({ length: 21 }, () => prop("name", "eq", "x"))],
  ])("refuses %s", (_, value) => {
    const messages = issues(encode(value as unknown));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^bad filter: /);
  });

  it("refuses a filter longer than 8192 characters", () => {
    expect(filterQuery.safeParse("A".repeat(8196)).success).toBe(false);
  });
});
