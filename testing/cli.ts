import path from "node:path";
import { expect } from "vitest";
import { type Run, runToExit } from "./processes";
import { root } from "./server";
import { inStartSlot } from "./start-slots";

/** The admin CLI as a real process (`tsx lib/cli/main.ts`), as e2e/api/cli.test.ts and others run it. */

const tsx = path.join(root, "node_modules/.bin/tsx");

/** Where the CLI works: DATA_DIR, DATABASE_URL on PostgreSQL, and PUBLIC_URL for the links it prints. */
export type Data = { DATA_DIR: string; DATABASE_URL?: string; PUBLIC_URL?: string };

export type CliResult = Run;

/** Runs `npm run cli -- ...args` (without npm) on `data` and waits for it to exit. */
export const cli = (data: Data, ...args: string[]) => runCli(data, args);

/** A command may run this long: only a hung one takes that long. */
const capSeconds = 180;

/**
 * `cli` with options: like a server start, a command (tsx and PGlite starting) waits for a start
 * slot (./start-slots.ts) unless `takeStartSlot` is false, for commands that must run at once.
 */
export function runCli(data: Data, args: string[], { takeStartSlot = true } = {}): Promise<CliResult> {
  const run = () => spawnCli(data, args);
  return takeStartSlot ? inStartSlot(run) : run();
}

function spawnCli(data: Data, args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", DATA_DIR: data.DATA_DIR };
  delete env.DATABASE_URL;
  if (data.DATABASE_URL) env.DATABASE_URL = data.DATABASE_URL;
  if (data.PUBLIC_URL) env.PUBLIC_URL = data.PUBLIC_URL;
  return runToExit(tsx, ["lib/cli/main.ts", ...args], { cwd: root, env, seconds: capSeconds });
}

/** The command succeeded: exit 0, its line on stdout matching `output`, nothing on stderr. */
export async function expectOk(result: Promise<CliResult>, output: RegExp) {
  const { code, stdout, stderr } = await result;
  expect({ code, stderr }, stdout).toEqual({ code: 0, stderr: "" });
  expect(stdout).toMatch(output);
  return stdout;
}

/** The command failed with `code`: its message on stderr matching `message`, nothing on stdout, no stack. */
export async function expectError(result: Promise<CliResult>, code: number, message: RegExp) {
  const run = await result;
  expect({ code: run.code, stdout: run.stdout }, run.stderr).toEqual({ code, stdout: "" });
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}
