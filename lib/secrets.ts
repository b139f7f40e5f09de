import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Reads a secret kept in DATA_DIR, creating it (owner-only) on first use. */
export function loadOrCreateSecret(dataDir: string, file: string, bytes = 48): string {
  const location = path.resolve(dataDir, file);
  try {
    return readFileSync(location, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(location), { recursive: true });
  const secret = randomBytes(bytes).toString("base64url");
  try {
    writeFileSync(location, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(location, "utf8").trim();
    throw error;
  }
}
