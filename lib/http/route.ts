import { Readable } from "node:stream";
import type { ZodError, z } from "zod";
import { actorOf, recordAudit } from "../audit/trail";
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
import type { Page, Reply } from "../results";
import { type Answer, answerOf, apiHeaders, errorAnswer } from "./answer";
import { findUnstorableText, readJsonBody } from "./body";
import type { Access, Operation } from "./operation";
import { sourceAddress } from "./source";

// Operation fields are optional, so their types include undefined: look past it.
type Infer<S> = [NonNullable<S>] extends [never] ? undefined : z.output<NonNullable<S> & z.ZodType>;

type AccessContext<A extends Access> = A extends { kind: "tenant"; allowsNoCredentials: true }
  ? { scope: Scope | null }
  : A extends { kind: "tenant" }
    ? { scope: Scope }
    : A extends { kind: "device" }
      ? { device: A extends { orInternal: true } ? DeviceCaller | null : DeviceCaller }
      : A extends { kind: "user" }
        ? { userId: string; tokenTenant: string; token: string }
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

function toResponse({ status, body, headers }: Answer) {
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

/**
 * The query's parameters, the first value of each. An empty value (`status=`) is no value: the
 * parameter's default or no filter, as clients that send every parameter of a form expect.
 */
function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (value !== "") query[key] ??= value;
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
  const source = sourceAddress(request.headers);
  const caller = await resolveCaller(db, request.headers, request.method, source);
  if (!caller && access.kind === "tenant" && access.allowsNoCredentials) return { scope: null };
  if (!caller) throw unauthorized("missing credentials: send 'Authorization: Bearer <token>' or 'X-API-KEY'");
  if (access.kind === "principal") return { caller };
  if (access.kind === "user") {
    if (caller.kind !== "user") throw forbidden("API keys cannot be used on user routes");
    return { userId: caller.userId, tokenTenant: caller.tokenTenant, token: caller.token };
  }
  const pathTenant = access.tenantFromPath ? String(params.tenant) : undefined;
  const scope = await resolveScope(db, caller, pathTenant, source);
  const refusal =
    caller.kind === "apikey" && access.apiKey === false
      ? "API keys cannot be used for this operation"
      : !can(scope.role, access.permission)
        ? `the ${scope.role} role may not do this`
        : undefined;
  if (refusal !== undefined) {
    await recordAudit(db, {
      tenantId: scope.tenantId,
      actor: await actorOf(db, scope),
      source,
      action: "access.denied",
      target: { type: "operation", id: operation.id },
      outcome: "failure",
      details: { reason: refusal, role: scope.role, method: request.method, path: new URL(request.url).pathname },
    });
    throw forbidden(refusal);
  }
  return { scope };
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
      const unstorable = findUnstorableText([rawParams, queryObject(url)]);
      if (unstorable) throw new ApiError(400, `${unstorable} in the URL`);
      const params = operation.params
        ? validate(operation.params, rawParams, "path", operation.hasFieldNameErrors)
        : undefined;
      const query = operation.query ? validate(operation.query, queryObject(url), "query") : undefined;
      // Credentials are checked before the body is read, so strangers learn nothing from validation.
      const access = await authorize(operation, request, (params ?? {}) as Record<string, unknown>);
      const body = operation.body
        ? validate(
            operation.body,
            await readJsonBody(request.body && Readable.from(request.body), request.headers.get("content-length")),
            "body",
            operation.hasFieldNameErrors,
          )
        : undefined;
      const source = sourceAddress(request.headers);
      const result = await handler({ request, source, params, query, body, ...access } as RouteContext<O>);
      // A handler that streams (an event stream) answers with its own Response.
      if (result instanceof Response) return result;
      return toResponse(answerOf(operation, result));
    } catch (error) {
      return toResponse(errorAnswer(error, { method: request.method, path: new URL(request.url).pathname }));
    }
  };
}
