import { and, eq, type SQLWrapper, sql } from "drizzle-orm";
import { apiKeys } from "@/models/api-keys";
import { devices } from "@/models/devices";
import { members, namespaces } from "@/models/namespaces";
import { users } from "@/models/users";
import { recordAudit } from "../audit/trail";
import type { Executor } from "../db";
import { forbidden, notFound, unauthorized } from "../errors";
import { checkSameOrigin, readBrowserSession } from "./browser-session";
import { bearerToken, verifyDeviceToken, verifyUserToken } from "./jwt";
import { lowerRole, type MemberRole } from "./roles";
import { hashToken } from "./token-hash";

export type Caller =
  | {
      kind: "user";
      userId: string;
      tokenTenant: string;
      token: string;
      /**
       * The user's role in `tokenTenant`, read with the user (null: not an accepted member there);
       * absent when not read. Most calls act in the token's namespace: resolveScope needs no
       * second statement for them.
       */
      tokenRole?: MemberRole | null;
    }
  | { kind: "apikey"; tenantId: string; role: MemberRole; createdBy: string; keyName: string };

declare const scopeBrand: unique symbol;
/**
 * A namespace and the caller's current role in it; only built from a verified credential. The
 * actor (a user, or the API key `keyName` acting for its creator `actorId`) and the client's
 * address (`source`) are what the audit trail records.
 */
export type Scope = Readonly<{
  tenantId: string;
  role: MemberRole;
  actorId: string;
  via: "jwt" | "apikey";
  keyName?: string;
  source: string;
}> & {
  readonly [scopeBrand]: true;
};

const makeScope = (fields: Omit<Scope, typeof scopeBrand>) => fields as Scope;

/**
 * Identifies the caller from `X-API-KEY` (which wins), `Authorization: Bearer`, or else the
 * console's session cookie, which is taken for a write only from the service's own origin.
 */
export async function resolveCaller(
  db: Executor,
  headers: Headers,
  method: string,
  source = "",
): Promise<Caller | undefined> {
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null) return authenticateApiKey(db, apiKey.trim(), source);
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const token = bearerToken(authorization);
    if (!token) throw unauthorized("malformed Authorization header: expected 'Bearer <token>'");
    return authenticateUserToken(db, token);
  }
  const session = await readBrowserSession(headers);
  if (!session) return undefined;
  checkSameOrigin(method, headers);
  return authenticateUserToken(db, session.apiToken);
}

/** The accepted membership of `user` in `tenantId`. */
const membershipOf = (tenantId: string, user: SQLWrapper | string) =>
  and(eq(members.tenantId, tenantId), eq(members.userId, user), eq(members.status, "accepted"));

async function authenticateUserToken(db: Executor, token: string): Promise<Caller> {
  const claims = verifyUserToken(token);
  if (!claims) throw unauthorized("invalid or expired token");
  const [user] = await db
    .select({ id: users.id, role: members.role })
    .from(users)
    .leftJoin(members, claims.tenant ? membershipOf(claims.tenant, users.id) : sql`false`)
    .where(eq(users.id, claims.sub));
  if (!user) throw unauthorized("the token's user no longer exists");
  return { kind: "user", userId: user.id, tokenTenant: claims.tenant, token, tokenRole: user.role };
}

/**
 * The caller of an API key. The refusal of a key that exists (expired, or its creator gone) is a
 * row of its namespace's audit trail; an unknown key names no namespace to record it in.
 */
async function authenticateApiKey(db: Executor, key: string, source: string): Promise<Caller> {
  if (key === "") throw unauthorized("empty X-API-KEY header");
  const [row] = await db
    .select({
      tenantId: apiKeys.tenantId,
      name: apiKeys.name,
      role: apiKeys.role,
      createdBy: apiKeys.createdBy,
      expiresIn: apiKeys.expiresIn,
      creatorRole: members.role,
    })
    .from(apiKeys)
    .leftJoin(members, and(eq(members.tenantId, apiKeys.tenantId), eq(members.userId, apiKeys.createdBy)))
    .where(eq(apiKeys.keyHash, hashToken(key)));
  if (!row) throw unauthorized("invalid API key");
  const hasExpired = row.expiresIn !== -1 && row.expiresIn * 1000 <= Date.now();
  if (hasExpired || !row.creatorRole) {
    const refusal = hasExpired
      ? "the API key has expired"
      : "the API key's creator is no longer a member of its namespace";
    await recordAudit(db, {
      tenantId: row.tenantId,
      actor: { type: "api_key", id: row.name, name: row.name },
      source,
      action: "api_key.use",
      target: { type: "api_key", id: row.name },
      outcome: "failure",
      details: { reason: refusal },
    });
    throw unauthorized(refusal);
  }
  // A key never acts above its creator's current role.
  return {
    kind: "apikey",
    tenantId: row.tenantId,
    role: lowerRole(row.role, row.creatorRole),
    createdBy: row.createdBy,
    keyName: row.name,
  };
}

/**
 * The namespace the caller acts in and their role there, read from the database on every
 * request. `pathTenant` is the namespace named by the URL, if any: not being its member is a 404.
 */
export async function resolveScope(db: Executor, caller: Caller, pathTenant?: string, source = ""): Promise<Scope> {
  if (caller.kind === "apikey") {
    if (pathTenant !== undefined && pathTenant !== caller.tenantId) throw notFound("namespace");
    return makeScope({
      tenantId: caller.tenantId,
      role: caller.role,
      actorId: caller.createdBy,
      via: "apikey",
      keyName: caller.keyName,
      source,
    });
  }
  const tenantId = pathTenant ?? caller.tokenTenant;
  if (!tenantId) throw forbidden("no namespace selected: create one, or switch with GET /api/token/{tenant}");
  const role =
    tenantId === caller.tokenTenant && caller.tokenRole !== undefined
      ? caller.tokenRole
      : (await db.select({ role: members.role }).from(members).where(membershipOf(tenantId, caller.userId)))[0]?.role;
  if (role) return makeScope({ tenantId, role, actorId: caller.userId, via: "jwt", source });
  if (pathTenant !== undefined) throw notFound("namespace");
  const [namespace] = await db
    .select({ tenantId: namespaces.tenantId })
    .from(namespaces)
    .where(eq(namespaces.tenantId, tenantId));
  if (!namespace) throw unauthorized("the token's namespace no longer exists");
  throw forbidden("you are no longer a member of this namespace");
}

export type DeviceCaller = { uid: string; tenantId: string };

/** The device named by a device token (`Authorization: Bearer`), if it still exists. */
export async function resolveDevice(db: Executor, headers: Headers): Promise<DeviceCaller> {
  const token = bearerToken(headers.get("authorization"));
  if (!token) throw unauthorized("missing device token: send 'Authorization: Bearer <token>'");
  const claims = verifyDeviceToken(token);
  if (!claims) throw unauthorized("invalid or expired device token");
  const [device] = await db
    .select({ uid: devices.uid })
    .from(devices)
    .where(and(eq(devices.uid, claims.uid), eq(devices.tenantId, claims.tenant)));
  if (!device) throw unauthorized("the token's device no longer exists");
  return { uid: claims.uid, tenantId: claims.tenant };
}
