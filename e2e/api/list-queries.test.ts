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
/** The path parameters of the lists that are a resource's own (a webhook's deliveries). */
const pathParams: Record<string, string> = {};
beforeAll(async () => {
  namespace = await seedNamespace();
  await seedDevice(namespace, { tags: ["first"] });
  const webhook = await call("POST", "/api/webhooks", {
    token: namespace.owner.tenantToken,
    body: { url: "http://127.0.0.1:9/hook", events: ["audit"], enabled: false },
  });
  pathParams.id = webhook.body.id as string;
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
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => pathParams[name] ?? `{${name}}`);
    const plain = await call("GET", path, credentials);
    const withEmpty = await call("GET", `${path}?${empty}`, credentials);
    expect(plain.status, plain.text).toBe(200);
    expect(withEmpty.status, withEmpty.text).toBe(200);
    expect(withEmpty.body).toEqual(plain.body);
    expect(withEmpty.headers.get("x-total-count")).toBe(plain.headers.get("x-total-count"));
  },
);
