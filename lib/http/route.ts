import { randomUUID } from "node:crypto";
import { ZodError, type z } from "zod";
import {
  type Caller,
  type DeviceCaller,
  resolveCaller,
  resolveDevice,
  resolveScope,
  type Scope,
} from "../auth/credentials";
import { internalSecretHeader, isInternalSecret } from "../auth/internal";
import { can } from "../auth/roles";
import { getConfig } from "../config";
import { getDb } from "../db";
import { ApiError, forbidden, notFound, unauthorized, ValidationError } from "../errors";
import { log } from "../log";
import { type Page, Reply } from "../results";
import { containsNul, readJsonBody } from "./body";
import type { Access, Operation } from "./operation";
import { sourceAddress } from "./source";

// Operation fields are optional, so their types include undefined: look past it.
type Infer<S> = [NonNullable<S>] extends [never] ? undefined : z.output<NonNullable<S> & z.ZodType>;

type AccessContext<A extends Access> = A extends { kind: "tenant" }
  ? { scope: Scope }
  : A extends { kind: "device" }
    ? { device: A extends { orInternal: true } ? DeviceCaller | null : DeviceCaller }
    : A extends { kind: "user" }
      ? { userId: string; tokenTenant: string }
      : A extends { kind: "principal" }
        ? { caller: Caller }
        : object;

export type RouteContext<O extends Operation> = {
  request: Request;
  /** The client's address (see lib/http/source.ts). */
  source: string;
  params: Infer<O["params"]>;
  query: Infer<O["query"]>;
  body: Infer<O["body"]>;
} & AccessContext<O["access"]>;

type HandlerResult<O extends Operation> = O["isList"] extends true ? Page<unknown> | Reply<Page<unknown>> : unknown;

type NextContext = { params: Promise<Record<string, string | string[]>> };

export const apiHeaders = { "cache-control": "no-store", "x-content-type-options": "nosniff" };

function json(body: unknown, status: number, headers: Record<string, string> = {}) {
  return Response.json(body ?? {}, { status, headers: { ...apiHeaders, ...headers } });
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, where: string, asFieldNames = false) {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw toValidationError(result.error, where, asFieldNames);
}

function toValidationError(error: ZodError, where: string, asFieldNames: boolean) {
  const issues = error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join(".") : where,
    message: issue.message,
  }));
  return new ValidationError(issues, asFieldNames);
}

function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] ??= value;
  return query;
}

async function authorize(operation: Operation, request: Request, params: Record<string, unknown>) {
  const access = operation.access;
  if (access.kind === "public") return {};
  const hasInternalSecret = isInternalSecret(request.headers.get(internalSecretHeader));
  if (access.kind === "internal") {
    if (!hasInternalSecret) throw unauthorized("missing or wrong internal secret");
    return {};
  }
  if (access.kind === "device") {
    if (access.orInternal && hasInternalSecret) return { device: null };
    return { device: await resolveDevice(getDb(), request.headers) };
  }
  const db = getDb();
  const caller = await resolveCaller(db, request.headers);
  if (!caller) throw unauthorized("missing credentials: send 'Authorization: Bearer <token>' or 'X-API-KEY'");
  if (access.kind === "principal") return { caller };
  if (access.kind === "user") {
    if (caller.kind !== "user") throw forbidden("API keys cannot be used on user routes");
    return { userId: caller.userId, tokenTenant: caller.tokenTenant };
  }
  if (caller.kind === "apikey" && access.apiKey === false)
    throw forbidden("API keys cannot be used for this operation");
  const pathTenant = access.tenantFromPath ? String(params.tenant) : undefined;
  const scope = await resolveScope(db, caller, pathTenant);
  if (!can(scope.role, access.permission)) throw forbidden(`the ${scope.role} role may not do this`);
  return { scope };
}

function toResponse(operation: Operation, result: unknown): Response {
  const reply = result instanceof Reply ? result : new Reply(result);
  const status = reply.init.status ?? 200;
  const headers = { ...reply.init.headers };
  let body = reply.body;
  if (operation.isList) {
    const page = body as Page<unknown>;
    headers["x-total-count"] = String(page.total);
    body = operation.response ? page.items.map((item) => operation.response?.parse(item)) : page.items;
  } else if (operation.response && body !== undefined) {
    body = operation.response.parse(body);
  }
  return json(body, status, headers);
}

function errorResponse(error: unknown, request: Request): Response {
  if (error instanceof ApiError) return json(error.body(), error.status, error.headers);
  const requestId = randomUUID();
  const reason = error instanceof ZodError ? "response failed its schema" : "unhandled error";
  log.error(reason, {
    requestId,
    method: request.method,
    path: new URL(request.url).pathname,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return json({ message: "internal server error", request_id: requestId }, 500);
}

/**
 * The one wrapper around every API handler: credential, namespace and role, zod parsing of
 * path, query and body, error mapping and `X-Total-Count`. Handlers only call a service.
 */
export function route<O extends Operation>(
  operation: O,
  handler: (context: RouteContext<O>) => Promise<HandlerResult<O>> | HandlerResult<O>,
) {
  return async (request: Request, next: NextContext): Promise<Response> => {
    try {
      if (operation.isCloudOnly && getConfig().EDITION !== "cloud") throw notFound("this operation");
      const url = new URL(request.url);
      const rawParams = await next.params;
      if (containsNul(rawParams) || containsNul(queryObject(url))) throw new ApiError(400, "NUL character in the URL");
      const params = operation.params
        ? validate(operation.params, rawParams, "path", operation.hasFieldNameErrors)
        : undefined;
      const query = operation.query ? validate(operation.query, queryObject(url), "query") : undefined;
      // Credentials are checked before the body is read, so strangers learn nothing from validation.
      const access = await authorize(operation, request, (params ?? {}) as Record<string, unknown>);
      const body = operation.body
        ? validate(operation.body, await readJsonBody(request), "body", operation.hasFieldNameErrors)
        : undefined;
      const source = sourceAddress(request.headers);
      const result = await handler({ request, source, params, query, body, ...access } as RouteContext<O>);
      return toResponse(operation, result);
    } catch (error) {
      return errorResponse(error, request);
    }
  };
}
