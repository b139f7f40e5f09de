import { describe, expect, it } from "vitest";
import { operations } from "@/lib/api";
import { call } from "@/testing/client";

describe("GET /api/openapi.json", () => {
  it("documents every operation with its method, access and schemas", async () => {
    const response = await call("GET", "/api/openapi.json");
    expect(response.status).toBe(200);
    type Entry = {
      operationId?: string;
      requestBody?: { content: Record<string, { schema: { type?: string } }> };
      responses: Record<string, unknown>;
    };
    const paths = response.body.paths as Record<string, Record<string, Entry>>;
    const documented = Object.values(paths).flatMap((item) => Object.values(item).map((entry) => entry.operationId));
    expect(documented.sort()).toEqual(operations.map((operation) => operation.id).sort());
    for (const operation of operations) {
      const entry = paths[operation.path]?.[operation.method.toLowerCase()];
      expect(entry?.operationId, `${operation.method} ${operation.path}`).toBe(operation.id);
      if (operation.body) expect(entry?.requestBody?.content["application/json"]?.schema.type).toBe("object");
      if (operation.access.kind !== "public") expect(entry?.responses[401]).toBeDefined();
    }
  });

  it("describes request fields and limits from the zod schemas", async () => {
    const { body } = await call("GET", "/api/openapi.json");
    const register = body.paths["/api/register"].post.requestBody.content["application/json"].schema;
    expect(register.required).toEqual(expect.arrayContaining(["name", "email", "username", "password"]));
    expect(register.properties.password).toMatchObject({ minLength: 5, maxLength: 30 });
    const list = body.paths["/api/namespaces"].get;
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(["page", "per_page", "filter"]),
    );
    expect(list.responses[200].headers["X-Total-Count"]).toBeDefined();
  });

  it("describes the event stream as text/event-stream with the JSON of its data and Last-Event-ID", async () => {
    const { body } = await call("GET", "/api/openapi.json");
    const events = body.paths["/api/events"].get;
    const stream = events.responses[200].content["text/event-stream"].schema;
    expect(stream.required).toEqual(expect.arrayContaining(["type", "uid", "at", "patch"]));
    expect(stream.properties.type.enum).toEqual(expect.arrayContaining(["device.online", "device.offline", "stats"]));
    expect(events.parameters).toContainEqual(expect.objectContaining({ name: "Last-Event-ID", in: "header" }));
    expect(events.responses[401]).toBeDefined();
  });

  it("answers every documented path on the server (no operation without a route)", async () => {
    for (const operation of operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      const response = await call(operation.method, path, { body: operation.body ? {} : undefined });
      // Next.js answers an unrouted path with its HTML 404 page; every route answers JSON.
      expect(response.headers.get("content-type"), `${operation.method} ${operation.path}`).toContain(
        "application/json",
      );
    }
  });
});
