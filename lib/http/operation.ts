import type { z } from "zod";
import type { Action } from "../auth/roles";

/**
 * Who may call an operation:
 * - public: anyone;
 * - user: a logged-in user (JWT); API keys are refused;
 * - principal: a user (JWT) or an API key, without a namespace role;
 * - tenant: a member of the namespace whose role allows `permission`; the namespace is the
 *   credential's, or the `tenant` path parameter's when `tenantFromPath` is set; with
 *   `allowsNoCredentials`, a request without credentials reaches the handler too (scope null),
 *   for an operation whose own rules authenticate it;
 * - internal: the server's own tools, holding the internal secret from DATA_DIR;
 * - device: an agent, with the device token `POST /api/devices/auth` gave it (or, with
 *   `orInternal`, the server's own tools).
 */
export type Access =
  | { kind: "public" }
  | { kind: "user" }
  | { kind: "principal" }
  | { kind: "tenant"; permission: Action; apiKey?: boolean; tenantFromPath?: boolean; allowsNoCredentials?: boolean }
  | { kind: "internal" }
  | { kind: "device"; orInternal?: boolean };

type Schema = z.ZodType;

export type Operation<
  A extends Access = Access,
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Schema | undefined = Schema | undefined,
> = {
  id: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI form, `{name}` for path parameters. */
  path: string;
  summary: string;
  tag: string;
  access: A;
  params?: P;
  query?: Q;
  body?: B;
  /** The response body, or each item of it for lists. */
  response?: R;
  /** A list: the handler returns `paged(items, total)` and `X-Total-Count` is set. */
  isList?: boolean;
  /** Bad input answers with the array of field names (user register and update). */
  hasFieldNameErrors?: boolean;
  isDeprecated?: boolean;
  /**
   * A `text/event-stream` (Server-Sent Events) instead of one JSON answer: `response` is the
   * JSON of each event's `data:` line, and the handler returns the streaming Response itself.
   */
  isEventStream?: boolean;
  /**
   * A file of this media type instead of JSON (an asciicast recording): the handler returns the
   * streaming Response itself.
   */
  fileType?: string;
  /** Only in the cloud edition: 404 in the community edition. */
  isCloudOnly?: boolean;
  /** Other documented answers, for the OpenAPI document. */
  errors?: Record<number, string>;
};

export const defineOperation = <
  A extends Access,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends Schema | undefined = undefined,
>(
  operation: Operation<A, P, Q, B, R>,
) => operation;
