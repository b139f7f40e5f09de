import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { freePort } from "./server";

/** The PostgreSQL 15 programs of Debian's packages, when they are installed. */
export const postgresBin = "/usr/lib/postgresql/15/bin";
export const hasPrivatePostgres = () => existsSync(path.join(postgresBin, "initdb"));

/**
 * A PostgreSQL server of the caller's own (initdb in a new directory, on a free port), for tests
 * that stop and start it: the machine's shared server is never touched. PostgreSQL refuses to
 * run as root, so as root it runs as the `postgres` account.
 */
export async function startPrivatePostgres() {
  const directory = mkdtempSync(path.join(tmpdir(), "das-pg-"));
  const dataDir = path.join(directory, "data");
  const port = await freePort();
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { uid, gid } = postgresAccount();
    chownSync(directory, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    execFileSync(
      asRoot ? "runuser" : path.join(postgresBin, program),
      asRoot ? ["-u", "postgres", "--", path.join(postgresBin, program), ...args] : args,
      {
        stdio: "pipe",
        timeout: 120_000,
      },
    );
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=on`;
  const start = () => run("pg_ctl", ["-D", dataDir, "-o", options, "-l", path.join(directory, "log"), "-w", "start"]);
  // Fast shutdown: open transactions are rolled back, what was committed stays.
  const stop = () => run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: () => {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function postgresAccount() {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}
