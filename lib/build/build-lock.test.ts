import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock, releaseLock } from "./build-lock";

// Real processes: the lock's owner is a process id, checked against the running system.

const newLock = () => path.join(mkdtempSync(path.join(tmpdir(), "das-build-lock-")), "lock");
/** The id of a process that has ended. */
const endedPid = () => spawnSync(process.execPath, ["-e", ""]).pid;
const ownerOf = (lock: string) => readFileSync(path.join(lock, "owner"), "utf8");

function leftBy(pid: number | string | undefined, lock: string) {
  mkdirSync(lock);
  if (pid !== undefined) writeFileSync(path.join(lock, "owner"), String(pid));
}

/** Runs `code` (TypeScript) in a process of its own, with `acquireLock` and `releaseLock` in scope. */
function inProcess(code: string) {
  const script = `import { acquireLock, releaseLock } from ${JSON.stringify(path.resolve("lib/build/build-lock.ts"))};
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
${code}`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "inherit" });
  return new Promise<number | null>((resolve) => child.once("exit", resolve));
}

describe("build lock", () => {
  it("is taken at once when free, and free again after", () => {
    const lock = newLock();
    let waits = 0;
    acquireLock(lock, () => waits++);
    expect([ownerOf(lock), waits]).toEqual([String(process.pid), 0]);
    releaseLock(lock);
    acquireLock(lock, () => waits++);
    expect(waits).toBe(0);
  });

  it("is taken over at once from a process that no longer runs (killed, or stopped with Ctrl+C)", () => {
    const lock = newLock();
    leftBy(endedPid(), lock);
    let waits = 0;
    acquireLock(lock, () => waits++);
    expect([ownerOf(lock), waits]).toEqual([String(process.pid), 0]);
  });

  it("is taken over when it has had no owner for 10 s (its maker killed in between), not before", () => {
    const lock = newLock();
    leftBy(undefined, lock);
    const old = new Date(Date.now() - 11_000);
    utimesSync(lock, old, old);
    acquireLock(lock, () => {
      throw new Error("waited");
    });
    expect(ownerOf(lock)).toBe(String(process.pid));
  });

  it("waits while a running process holds it, then takes it", async () => {
    const lock = newLock();
    const holder = inProcess(`mkdirSync(${JSON.stringify(lock)});
writeFileSync(${JSON.stringify(`${lock}/owner`)}, String(process.pid));
setTimeout(() => rmSync(${JSON.stringify(lock)}, { recursive: true }), 1_500);`);
    await expect.poll(() => ownerOf(lock), { timeout: 10_000 }).not.toBe("");
    let waits = 0;
    acquireLock(lock, () => waits++);
    expect([ownerOf(lock), waits]).toEqual([String(process.pid), 1]);
    expect(await holder).toBe(0);
  });

  it("goes to one process at a time when several find it abandoned together", async () => {
    const lock = newLock();
    const log = `${lock}.log`;
    const go = `${lock}.go`;
    leftBy(endedPid(), lock);
    // All of them started first, then let go at the same moment, so that they find it together.
    const exits = Promise.all(
      Array.from({ length: 6 }, () =>
        inProcess(`appendFileSync(${JSON.stringify(`${lock}.ready`)}, "x");
while (!existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
acquireLock(${JSON.stringify(lock)}, () => {});
appendFileSync(${JSON.stringify(log)}, "in " + process.pid + "\\n");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
appendFileSync(${JSON.stringify(log)}, "out " + process.pid + "\\n");
releaseLock(${JSON.stringify(lock)});`),
      ),
    );
    await expect
      .poll(() => readFileSync(`${lock}.ready`, { encoding: "utf8", flag: "a+" }).length, { timeout: 20_000 })
      .toBe(6);
    writeFileSync(go, "");
    expect(await exits).toEqual([0, 0, 0, 0, 0, 0]);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(12);
    // Each "in" is followed by the "out" of the same process.
    for (let index = 0; index < lines.length; index += 2) {
      expect(lines[index + 1]).toBe(lines[index]?.replace("in", "out"));
    }
  });
});
