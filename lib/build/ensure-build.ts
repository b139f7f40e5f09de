import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { acquireLock, releaseLock } from "./build-lock";

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

/**
 * Builds the Next.js app when there is no build yet or a source changed since the last one.
 * Processes starting together (test runs, a start during tests) build once: the others wait for
 * the build, unless its process no longer runs (lib/build/build-lock.ts).
 */
export function ensureBuild() {
  if (isBuildCurrent()) return;
  acquireLock(lock, () => process.stdout.write("waiting for another process's build of the web application...\n"));
  try {
    if (isBuildCurrent()) return;
    process.stdout.write("building the web application (next build)...\n");
    const nextBin = createRequire(path.join(root, "package.json")).resolve("next/dist/bin/next");
    const result = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit" });
    if (result.status !== 0) throw new Error(`next build failed with status ${result.status}`);
  } finally {
    releaseLock(lock);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuild();
