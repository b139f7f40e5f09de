import { sql } from "drizzle-orm";
import { getConfig, isBillingOn, publicUrl } from "../config";
import type { Executor } from "../db";
import { processSlot } from "../process-state";
import { version } from "../version";

export async function checkHealth(db: Executor) {
  await db.execute(sql`select 1`);
  return { status: "ok" as const };
}

const listeningSshPort = processSlot<number>("ssh port");

/** The port the SSH gateway listens on, once it does (SSH_PORT=0 lets the system choose one). */
export function setSshPort(port: number) {
  listeningSshPort.set(port);
}

/** Where clients reach the API and the SSH gateway, as `host:port`. */
export function describeServer() {
  const config = getConfig();
  const url = new URL(publicUrl(config));
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const sshPort = listeningSshPort.get() ?? config.SSH_PORT;
  return {
    version,
    endpoints: { api: `${url.hostname}:${port}`, ssh: `${url.hostname}:${sshPort}` },
    billing: isBillingOn(config),
  };
}
