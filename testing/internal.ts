import { readFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { call } from "./client";

let secret: string | undefined;

/** The headers of the server's own tools (gateway, admin CLI): the internal secret from the test server's DATA_DIR. */
export async function internalHeaders(): Promise<Record<string, string>> {
  if (!secret) {
    // The server makes the secret on first use: a wrong one first, so that the file exists.
    const wrong = await call("POST", "/internal/admin", { headers: { "x-internal-secret": "wrong" }, body: {} });
    if (wrong.status !== 401) throw new Error(`expected 401 for a wrong secret, got ${wrong.status}`);
    secret = readFileSync(path.join(inject("dataDir"), "internal.secret"), "utf8").trim();
  }
  return { "x-internal-secret": secret };
}
