import type { Role, SeededNamespace } from "@/testing/seeds/namespaces";
import type { SeededUser } from "@/testing/seeds/users";

/** Shapes of the role-matrix table (e2e/api/role-matrix.test.ts and e2e/api/matrix/*.ts). */
export type Via = "jwt" | "apikey";
export type Credentials = { token?: string; apiKey?: string };
/** Who calls: for an API key, `user` is the key's creator (the namespace owner). */
export type Actor = { role: Role; via: Via; user: SeededUser; credentials: Credentials };
export type Prepared = { params?: Record<string, string>; query?: string; body?: unknown };
export type Entry = {
  /** Destructive for the whole namespace: each case gets a new namespace with its own actor. */
  freshNamespace?: boolean;
  /** Roles the operation's own rule refuses (403) although the permission table lets them in. */
  refusedRoles?: Role[];
  /** What a role that is let in gets, when not 200 (billing, off on the run's server: 424). */
  allowedStatus?: number;
  request: (namespace: SeededNamespace, actor: Actor) => Promise<Prepared> | Prepared;
};
