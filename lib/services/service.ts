import { sql } from "drizzle-orm";
import { getConfig, publicUrl } from "../config";
import type { Executor } from "../db";
import { version } from "../version";

export async function checkHealth(db: Executor) {
  await db.execute(sql`select 1`);
  return { status: "ok" as const };
}

/** Where clients reach the API and the SSH gateway, as `host:port`. */
export function describeServer() {
  const config = getConfig();
  const url = new URL(publicUrl(config));
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return { version, endpoints: { api: `${url.hostname}:${port}`, ssh: `${url.hostname}:${config.SSH_PORT}` } };
}
