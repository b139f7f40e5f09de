import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** What a running server leaves in DATA_DIR so the admin CLI can reach it. */
export type ServerFile = { pid: number; url: string };

const fileName = "server.json";

export function writeServerFile(dataDir: string, content: ServerFile) {
  writeFileSync(path.resolve(dataDir, fileName), JSON.stringify(content), { mode: 0o600 });
}

export function removeServerFile(dataDir: string) {
  rmSync(path.resolve(dataDir, fileName), { force: true });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The server running on this DATA_DIR, if any (a file left by a killed server is ignored). */
export function readLiveServer(dataDir: string): ServerFile | undefined {
  try {
    const content = JSON.parse(readFileSync(path.resolve(dataDir, fileName), "utf8")) as ServerFile;
    return content.pid !== process.pid && isAlive(content.pid) ? content : undefined;
  } catch {
    return undefined;
  }
}

export class DataDirBusyError extends Error {}

/**
 * Takes DATA_DIR for this process: the embedded database allows one process per data
 * directory. Returns the release function. A lock left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.resolve(dataDir, "lock");
  const release = () => {
    try {
      if (readFileSync(file, "utf8").trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
  // The lock appears with its content at once (a link to a file written before), so another
  // process never reads it empty, takes it for a dead holder's and removes it.
  const claim = `${file}.${process.pid}`;
  writeFileSync(claim, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(claim, file);
        return release;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = Number(readFileSync(file, "utf8").trim() || 0);
      if (holder && isAlive(holder)) {
        throw new DataDirBusyError(
          `DATA_DIR ${dataDir} is in use by process ${holder} (remove ${file} if that process is not this service)`,
        );
      }
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(claim, { force: true });
  }
  throw new DataDirBusyError(`could not lock DATA_DIR ${dataDir}`);
}
