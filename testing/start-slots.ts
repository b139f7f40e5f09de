import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { isAlive } from "@/lib/runtime";

/**
 * A server start, or an admin CLI command, costs seconds of CPU (tsx, Next.js, PGlite). Started
 * all at once by test files running in parallel, they share the cores and each one takes many
 * times longer, long enough for tests to time out. So at most one runs per core at a time,
 * across every test process of the machine; the others wait their turn. A slot is a file in the
 * system's temporary directory that holds its owner's pid; the slot of a process that died is
 * free again.
 */

const directory = path.join(tmpdir(), "das-test-start-slots");
const slotCount = availableParallelism();
const held = new Set<string>();

// A process that exits while holding slots frees them; those of a killed one are freed by the next taker.
process.once("exit", () => {
  for (const file of held) rmSync(file, { force: true });
});

/** The pid in a slot file: 0 while its owner is still writing it, or when it is gone. */
function ownerOf(file: string): number {
  try {
    return Number(readFileSync(file, "utf8"));
  } catch {
    return 0;
  }
}

function tryTake(file: string): boolean {
  try {
    const descriptor = openSync(file, "wx");
    writeSync(descriptor, String(process.pid));
    closeSync(descriptor);
    held.add(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const owner = ownerOf(file);
    if (owner > 0 && !isAlive(owner)) rmSync(file, { force: true });
    return false;
  }
}

/** Runs `start` once a slot is free, holding the slot until it settles. */
export async function inStartSlot<T>(start: () => Promise<T>): Promise<T> {
  mkdirSync(directory, { recursive: true });
  const files = Array.from({ length: slotCount }, (_, index) => path.join(directory, `slot-${index}`));
  let file = files.find(tryTake);
  while (!file) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    file = files.find(tryTake);
  }
  try {
    return await start();
  } finally {
    held.delete(file);
    rmSync(file, { force: true });
  }
}
