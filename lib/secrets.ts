import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Reads a file kept in DATA_DIR, creating it (owner-only) with `create()` on first use. */
export function loadOrCreateFile(dataDir: string, file: string, create: () => string): string {
  const location = path.resolve(dataDir, file);
  try {
    return readFileSync(location, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(location), { recursive: true });
  const content = create();
  try {
    writeFileSync(location, `${content}\n`, { mode: 0o600, flag: "wx" });
    return content;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(location, "utf8").trim();
    throw error;
  }
}

/** Reads a random secret kept in DATA_DIR, creating it on first use. */
export const loadOrCreateSecret = (dataDir: string, file: string, bytes = 48) =>
  loadOrCreateFile(dataDir, file, () => randomBytes(bytes).toString("base64url"));
