import { readFileSync, rmSync, writeFileSync } from "node:fs";
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

function isAlive(pid: number): boolean {
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
