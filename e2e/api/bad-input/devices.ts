import { expect } from "vitest";
import { call, filterOf, property } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import type { Table } from "../support/bad-input";

const longText = (length: number) => "x".repeat(length);

async function deviceOf(namespace: SeededNamespace, uid: string) {
  const response = await call("GET", `/api/devices/${uid}`, { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`GET device: ${response.status} ${response.text}`);
  return response.body;
}

async function tagsOf(namespace: SeededNamespace) {
  const response = await call("GET", "/api/tags?per_page=100", { token: namespace.owner.tenantToken });
  if (response.status !== 200) throw new Error(`GET tags: ${response.status} ${response.text}`);
  return response.body as string[];
}

/** A namespace with one tagged device; `verify` checks the device is as it was. */
function deviceTable(cases: Table["cases"]): () => Table {
  return () => ({
    setup: async () => {
      const namespace = await seedNamespace();
      const device = await seedDevice(namespace, { tags: ["first", "second"] });
      const before = await deviceOf(namespace, device.uid);
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { uid: device.uid },
        values: {},
        verify: async () => expect(await deviceOf(namespace, device.uid)).toEqual(before),
      };
    },
    cases,
  });
}

const tagCases = (wrap: (tag: unknown) => unknown, field: string): Table["cases"] => [
  ["a 2-character tag", () => ({ body: wrap("ab") }), [field]],
  ["a 256-character tag", () => ({ body: wrap(longText(256)) }), [field]],
  ["a tag with a slash", () => ({ body: wrap("a/b/c") }), [field]],
  ["a tag with an at sign", () => ({ body: wrap("a@bc") }), [field]],
  ["a tag with an ampersand", () => ({ body: wrap("a&bc") }), [field]],
  ["a tag with a colon", () => ({ body: wrap("a:bc") }), [field]],
  ["a numeric tag", () => ({ body: wrap(12345) }), [field]],
  ["a null tag", () => ({ body: wrap(null) }), [field]],
];

function listDevicesTable(): Table {
  const filter = (items: unknown) => `filter=${filterOf(items)}`;
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=abc", () => ({ query: "per_page=abc" }), ["per_page"]],
      ["an unknown status", () => ({ query: "status=online" }), ["status"]],
      ["the status word accept", () => ({ query: "status=accept" }), ["status"]],
      ["an unknown sort_by", () => ({ query: "sort_by=public_key" }), ["sort_by"]],
      [
        "a sort_by that is SQL",
        () => ({ query: `sort_by=${encodeURIComponent("name; drop table devices")}` }),
        ["sort_by"],
      ],
      ["an unknown order_by", () => ({ query: "order_by=random" }), ["order_by"]],
      ["a filter that is not base64", () => ({ query: "filter=%25%25%25" }), ["filter"]],
      ["a filter that is not JSON", () => ({ query: `filter=${Buffer.from("[oops").toString("base64")}` }), ["filter"]],
      ["a filter that is an object", () => ({ query: filter({ name: "x" }) }), ["filter"]],
      ["a filter with an unknown operator", () => ({ query: filter([property("name", "like", "x")]) }), ["filter"]],
      ["a filter with an unknown type", () => ({ query: filter([{ type: "raw", params: {} }]) }), ["filter"]],
      ["a filter with an object value", () => ({ query: filter([property("name", "eq", { $ne: 1 })]) }), ["filter"]],
      // Names outside the allow-list, or of the wrong type for the operator: `{message}` only.
      ["a filter on public_key", () => ({ query: filter([property("public_key", "eq", "x")]) }), null],
      ["a filter on tenant_id", () => ({ query: filter([property("tenant_id", "eq", "x")]) }), null],
      ["a filter on an unknown info field", () => ({ query: filter([property("info.secret", "eq", "x")]) }), null],
      ["a filter on a SQL name", () => ({ query: filter([property("name) or (1=1", "eq", "x")]) }), null],
      ["a filter on an inherited name", () => ({ query: filter([property("constructor", "eq", "x")]) }), null],
      ["contains on a date", () => ({ query: filter([property("last_seen", "contains", "2024")]) }), null],
      ["bool on a text property", () => ({ query: filter([property("name", "bool", true)]) }), null],
      ["gt on tags", () => ({ query: filter([property("tags", "gt", "abc")]) }), null],
      ["an empty list of tags", () => ({ query: filter([property("tags", "contains", [])]) }), ["filter"]],
      ["a list of numbers as tags", () => ({ query: filter([property("tags", "contains", [1, 2])]) }), ["filter"]],
      ["a nested list of tags", () => ({ query: filter([property("tags", "contains", [["prod"]])]) }), ["filter"]],
      ["a list of tags with eq", () => ({ query: filter([property("tags", "eq", ["prod"])]) }), null],
      ["a list on a text property", () => ({ query: filter([property("name", "contains", ["a", "b"])]) }), null],
      ["a date that is not a date", () => ({ query: filter([property("created_at", "gt", "yesterday")]) }), null],
    ],
  };
}

function updateDeviceTable(): Table {
  return deviceTable([
    ["an upper-case name", () => ({ body: { name: "MyDevice" } }), ["name"]],
    ["a name with an underscore", () => ({ body: { name: "my_device" } }), ["name"]],
    ["a name with a dot", () => ({ body: { name: "my.device" } }), ["name"]],
    ["a name with a leading hyphen", () => ({ body: { name: "-device" } }), ["name"]],
    ["a name with a trailing hyphen", () => ({ body: { name: "device-" } }), ["name"]],
    ["a 64-character name", () => ({ body: { name: "a".repeat(64) } }), ["name"]],
    ["an empty name", () => ({ body: { name: "" } }), ["name"]],
    ["a numeric name", () => ({ body: { name: 12345 } }), ["name"]],
    ["public_url as a string", () => ({ body: { public_url: "true" } }), ["public_url"]],
    ["a valid name with a bad public_url", () => ({ body: { name: "fine-name", public_url: 1 } }), ["public_url"]],
  ])();
}

function createDeviceTagTable(): Table {
  return deviceTable([
    ["an empty body", () => ({ body: {} }), ["tag"]],
    ["tags instead of tag", () => ({ body: { tags: ["abc"] } }), ["tag"]],
    ...tagCases((tag) => ({ tag }), "tag"),
  ])();
}

function updateDeviceTagsTable(): Table {
  return deviceTable([
    ["an empty body", () => ({ body: {} }), ["tags"]],
    ["no tags", () => ({ body: { tags: [] } }), ["tags"]],
    ["4 tags", () => ({ body: { tags: ["one", "two", "three", "four"] } }), ["tags"]],
    ["a string instead of a list", () => ({ body: { tags: "abc" } }), ["tags"]],
    ...tagCases((tag) => ({ tags: ["fine", tag] }), "tags.1"),
  ])();
}

function renameTagTable(): Table {
  let namespace: SeededNamespace;
  return {
    setup: async () => {
      namespace = await seedNamespace();
      await seedDevice(namespace, { tags: ["old-tag"] });
      return {
        credentials: { token: namespace.owner.tenantToken },
        params: { tag: "old-tag" },
        values: {},
        verify: async () => expect(await tagsOf(namespace)).toEqual(["old-tag"]),
      };
    },
    cases: [["an empty body", () => ({ body: {} }), ["tag"]], ...tagCases((tag) => ({ tag }), "tag")],
  };
}

function listTagsTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      return { credentials: { token: namespace.owner.tenantToken }, values: {}, verify: async () => {} };
    },
    cases: [
      ["page=0", () => ({ query: "page=0" }), ["page"]],
      ["page=-1", () => ({ query: "page=-1" }), ["page"]],
      ["per_page=0", () => ({ query: "per_page=0" }), ["per_page"]],
      ["per_page=101", () => ({ query: "per_page=101" }), ["per_page"]],
      ["per_page=2.5", () => ({ query: "per_page=2.5" }), ["per_page"]],
    ],
  };
}

/** Bad input for the device and tag operations (see e2e/api/bad-input.test.ts). */
export const tables: Record<string, () => Table> = {
  listDevices: listDevicesTable,
  // The container list takes the device list's query.
  listContainers: listDevicesTable,
  updateDevice: updateDeviceTable,
  createDeviceTag: createDeviceTagTable,
  updateDeviceTags: updateDeviceTagsTable,
  renameTag: renameTagTable,
  listTags: listTagsTable,
};
