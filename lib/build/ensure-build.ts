import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = process.cwd();
const sources = [
  "app",
  "components",
  "lib",
  "models",
  "public",
  "next.config.js",
  "postcss.config.mjs",
  "package.json",
];

function newestChange(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return entry.endsWith(".test.ts") ? 0 : stat.mtimeMs;
  return readdirSync(entry).reduce(
    (newest, name) => Math.max(newest, newestChange(path.join(entry, name))),
    stat.mtimeMs,
  );
}

function isBuildCurrent(): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  return builtAt > Math.max(...sources.map((entry) => newestChange(path.join(root, entry))));
}

const lock = path.join(root, ".next-build.lock");
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Builds the Next.js app when there is no build yet or a source changed since the last one.
 * Processes starting together (test runs, a start during tests) build once: the others wait.
 */
export function ensureBuild() {
  for (;;) {
    if (isBuildCurrent()) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed build is stale after 10 minutes.
      const lockedAt = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - lockedAt > 600_000) rmSync(lock, { recursive: true, force: true });
      sleep(500);
    }
  }
  try {
    if (isBuildCurrent()) return;
    process.stdout.write("building the web application (next build)...\n");
    const nextBin = createRequire(path.join(root, "package.json")).resolve("next/dist/bin/next");
    const result = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit" });
    if (result.status !== 0) throw new Error(`next build failed with status ${result.status}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuild();
