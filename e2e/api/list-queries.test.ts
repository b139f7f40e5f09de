import { beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { operations } from "@/lib/api";
import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";

/**
 * Every list operation takes an empty query value (`status=`, `filter=`, `sort_by=`...) as no
 * value, as forms send a field nobody filled in: the same answer as without the parameter.
 */

const lists = operations.filter((operation) => operation.isList && operation.query instanceof z.ZodObject);

let namespace: SeededNamespace;
beforeAll(async () => {
  namespace = await seedNamespace();
  await seedDevice(namespace, { tags: ["first"] });
});

it("covers every list operation: each has a query of named parameters", () => {
  expect(lists.map((operation) => operation.id).sort()).toEqual(
    operations
      .filter((operation) => operation.isList)
      .map((operation) => operation.id)
      .sort(),
  );
});

it.each(lists.map((operation) => [operation.id, operation] as const))(
  "%s answers every parameter left empty as without it",
  async (_id, operation) => {
    const names = Object.keys((operation.query as z.ZodObject).shape);
    const empty = names.map((name) => `${name}=`).join("&");
    const credentials = { token: namespace.owner.tenantToken };
    const plain = await call("GET", operation.path, credentials);
    const withEmpty = await call("GET", `${operation.path}?${empty}`, credentials);
    expect(plain.status, plain.text).toBe(200);
    expect(withEmpty.status, withEmpty.text).toBe(200);
    expect(withEmpty.body).toEqual(plain.body);
    expect(withEmpty.headers.get("x-total-count")).toBe(plain.headers.get("x-total-count"));
  },
);
