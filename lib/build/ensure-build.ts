import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = process.cwd();
const sources = ["app", "components", "lib", "models", "public", "next.config.js", "postcss.config.mjs", "package.json"];

function newestChange(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestChange(path.join(entry, name))), stat.mtimeMs);
}

/** Builds the Next.js app when there is no build yet or a source changed since the last one. */
export function ensureBuild() {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const changedAt = Math.max(...sources.map((entry) => newestChange(path.join(root, entry))));
  if (builtAt > changedAt) return;
  process.stdout.write("building the web application (next build)...\n");
  const nextBin = createRequire(path.join(root, "package.json")).resolve("next/dist/bin/next");
  const result = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`next build failed with status ${result.status}`);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuild();
