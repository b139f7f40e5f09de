import { sql } from "drizzle-orm";
import { users } from "@/models/users";
import { isSetupSign, setupSign } from "../auth/setup-sign";
import { getConfig, publicUrl } from "../config";
import type { Executor } from "../db";
import { conflict, forbidden } from "../errors";
import { createNamespace } from "./namespaces";
import { createUser } from "./users";

// Any constant: concurrent setups queue on this lock, so exactly one finds the service empty.
const setupLockKey = 7_301_734;

/** Whether the service has its first account (as ShellHub's `/info` says with `setup`). */
export async function isSetUp(db: Executor): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).limit(1);
  return row !== undefined;
}

/** The first-run page with the sign, as the start message and `npm run cli -- setup link` give it. */
export function setupLink(): string {
  return `${publicUrl(getConfig())}/setup?sign=${setupSign()}`;
}

export type SetupInput = { name: string; email: string; username: string; password: string; namespace?: string };

/** Creates the first account (confirmed) and its namespace, on a service that has no account yet. */
export async function setUp(db: Executor, sign: string, input: SetupInput) {
  if (!isSetupSign(sign)) throw forbidden("wrong sign: open the setup link of the server's start message");
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${setupLockKey})`);
    if (await isSetUp(tx)) throw conflict("the service is set up already: log in, or register");
    const user = await createUser(tx, input);
    const namespace = await createNamespace(tx, user.id, { name: input.namespace ?? input.username });
    return { message: `account '${user.username}' and namespace '${namespace?.name}' created: log in` };
  });
}
