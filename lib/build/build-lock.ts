import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
 * Removes the lock if it is still the abandoned one: under a second lock, `${lock}.takeover`, so
 * that no other waiter removes a lock made since (only a takeover removes another's lock, and
 * the abandoned one stays until then). A takeover lock older than 10 s was left by a waiter
 * killed in between.
 */
function takeOver(lock: string, abandonedOwner: string | undefined, madeAt: number): boolean {
  const takeover = `${lock}.takeover`;
  try {
    mkdirSync(takeover);
  } catch {
    const heldSince = statSync(takeover, { throwIfNoEntry: false })?.mtimeMs;
    if (heldSince !== undefined && Date.now() - heldSince > ownerlessStaleMs)
      rmSync(takeover, { recursive: true, force: true });
    return false;
  }
  try {
    const isSameLock =
      statSync(lock, { throwIfNoEntry: false })?.mtimeMs === madeAt && ownerOf(lock) === abandonedOwner;
    if (isSameLock) rmSync(lock, { recursive: true, force: true });
    return isSameLock;
  } finally {
    rmSync(takeover, { recursive: true, force: true });
  }
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
    if (isAbandoned(owner, madeAt) && takeOver(lock, owner, madeAt)) continue;
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
