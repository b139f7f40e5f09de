import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A lock without an owner this long after it was made was left by a process killed in between. */
const ownerlessStaleMs = 10_000;
/** Older than this, a lock is stale whoever its owner: its process id may since belong to another process. */
const maxHeldMs = 30 * 60_000;
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const ownerFile = (lock: string) => path.join(lock, "owner");

function ownerOf(lock: string): string | undefined {
  try {
    return readFileSync(ownerFile(lock), "utf8");
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isAbandoned(owner: string | undefined, madeAt: number): boolean {
  const age = Date.now() - madeAt;
  if (age > maxHeldMs) return true;
  return owner === undefined ? age > ownerlessStaleMs : !isRunning(Number(owner));
}

/**
 * Moves the abandoned lock aside, in one step only one waiter can take. A waiter that read its
 * owner before another took it over and made a new one has moved the new one: it puts it back.
 */
function takeOver(lock: string, abandonedOwner: string | undefined): boolean {
  const aside = `${lock}.stale-${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    return false;
  }
  if (ownerOf(aside) !== abandonedOwner) {
    try {
      renameSync(aside, lock);
    } catch {
      // A third waiter made a lock in the microseconds between: two builds run at once.
      rmSync(aside, { recursive: true, force: true });
    }
    return false;
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}

/**
 * Takes the lock directory `lock` (made by one process at a time, holding its owner's process id),
 * waiting while a running process holds it: one that no longer runs (killed, or interrupted with
 * Ctrl+C before it could let go) loses it at once. `onWait` is told once when this waits.
 */
export function acquireLock(lock: string, onWait: () => void): void {
  let isWaitTold = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(ownerFile(lock), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const madeAt = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    // Let go of since it was tried.
    if (madeAt === undefined) continue;
    const owner = ownerOf(lock);
    if (isAbandoned(owner, madeAt) && takeOver(lock, owner)) continue;
    if (!isWaitTold) {
      onWait();
      isWaitTold = true;
    }
    sleep(200);
  }
}

export function releaseLock(lock: string): void {
  rmSync(lock, { recursive: true, force: true });
}
