import { z } from "zod";
import { permissions } from "../auth/roles";
import type { Operation } from "./operation";

const roleOrder = ["observer", "operator", "administrator", "owner"] as const;

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "openapi-3.0" });
}

function accessText(operation: Operation): string {
  const access = operation.access;
  switch (access.kind) {
    case "public":
      return "No authentication.";
    case "internal":
      return "The server's internal secret (X-Internal-Secret).";
    case "device":
      return access.orInternal ? "A device token, or the server's internal secret." : "A device token.";
    case "user":
      return "A user's JWT; API keys are refused.";
    case "principal":
      return "A user's JWT or an API key.";
    case "tenant": {
      const minimum = roleOrder.find((role) => permissions[role].has(access.permission));
      const keys = access.apiKey === false ? "JWT only" : "JWT or API key";
      const anonymous = access.allowsNoCredentials ? " Without credentials, the operation's own rules decide." : "";
      return `Minimum role: ${minimum} (${keys}).${anonymous}`;
    }
  }
}

function parameters(operation: Operation) {
  const list: unknown[] = [];
  for (const [where, schema] of [
    ["path", operation.params],
    ["query", operation.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      list.push({
        name,
        in: where,
        required: where === "path" || (object.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  if (operation.isEventStream) {
    list.push({
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description: "The id of the last event received: the events after it are sent first, or a `reset` event.",
      schema: { type: "string" },
    });
  }
  return list;
}

function responses(operation: Operation) {
  const ok: Record<string, unknown> = { description: "Success" };
  if (operation.isEventStream) {
    ok.description =
      "Server-Sent Events: `id: <id>`, `event: <type>` and `data: <JSON>` below, one event after another";
    if (operation.response) ok.content = { "text/event-stream": { schema: jsonSchema(operation.response, "output") } };
  } else if (operation.fileType) {
    ok.content = { [operation.fileType]: { schema: { type: "string" } } };
  } else if (operation.response) {
    const schema = jsonSchema(operation.response, "output");
    ok.content = { "application/json": { schema: operation.isList ? { type: "array", items: schema } : schema } };
    if (operation.isList)
      ok.headers = { "X-Total-Count": { schema: { type: "integer" }, description: "Total matches" } };
  }
  const result: Record<string, unknown> = { 200: ok };
  if (operation.body) result[400] = { description: "Invalid input" };
  if (operation.access.kind !== "public") result[401] = { description: "Missing or bad credentials" };
  if (operation.access.kind === "tenant") result[403] = { description: "The role may not do this" };
  for (const [status, description] of Object.entries(operation.errors ?? {})) result[status] = { description };
  return result;
}

function security(operation: Operation) {
  const access = operation.access;
  if (access.kind === "public") return [];
  if (access.kind === "user") return [{ bearer: [] }];
  // An empty requirement: the operation may also be called without credentials.
  const orNone = access.kind === "tenant" && access.allowsNoCredentials ? [{}] : [];
  return [{ bearer: [] }, { apiKey: [] }, ...orNone];
}

/** The OpenAPI 3 document, built from the operations and their zod schemas. */
export function openApiDocument(operations: Operation[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    const item = paths[operation.path] as Record<string, unknown>;
    item[operation.method.toLowerCase()] = {
      operationId: operation.id,
      summary: operation.summary,
      description: accessText(operation),
      tags: [operation.tag],
      deprecated: operation.isDeprecated ?? false,
      security: security(operation),
      parameters: parameters(operation),
      ...(operation.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchema(operation.body, "input") } },
            },
          }
        : {}),
      responses: responses(operation),
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Device access service", version },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-KEY" },
      },
    },
    paths,
  };
}
