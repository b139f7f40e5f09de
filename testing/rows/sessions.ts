import type { Executor } from "@/lib/db";
import { createSession } from "@/lib/services/sessions";
import { randomUid } from "../client";
import { insertDevice } from "./devices";
import { seedScope } from "./namespaces";

/** A recorded shell session, started as the gateway starts one, on a new device of a new namespace. */
export async function startRecordedSession(db: Executor) {
  const scope = await seedScope(db);
  const uid = randomUid();
  await createSession(db, {
    uid,
    tenantId: scope.tenantId,
    deviceUid: await insertDevice(db, scope.tenantId),
    username: "root",
    ipAddress: "192.0.2.1",
    type: "shell",
    term: "xterm-256color",
    recorded: true,
  });
  return { scope, uid };
}
