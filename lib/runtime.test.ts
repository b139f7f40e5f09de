import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { expect, it } from "vitest";

// Each process says it is ready, reads the moment to start at, tries to take the directory then,
// says whether it had it and holds it until its input closes: a slow starter cannot find the
// directory free again after the others are done.
const contender = `
  import { createInterface } from "node:readline";
  const { lockDataDir } = await import(${JSON.stringify(path.resolve("lib/runtime.ts"))});
  const input = createInterface({ input: process.stdin });
  console.log("ready");
  const [moment] = await input[Symbol.asyncIterator]().next().then(({ value }) => [Number(value)]);
  while (Date.now() < moment);
  try {
    lockDataDir(process.argv[1]);
    console.log("took it");
  } catch (error) {
    console.log(error.message);
  }
  await new Promise((resolve) => input.on("close", resolve));
`;

/** The lines a process prints, one at a time. */
function linesOf(child: ChildProcess) {
  return createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
}

it("lets exactly one of several processes starting at once take a data directory", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-lock-"));
  const children = Array.from({ length: 6 }, () =>
    spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", contender, dataDir]),
  );
  const closed = children.map((child) => new Promise((resolve) => child.once("close", resolve)));
  try {
    const lines = children.map(linesOf);
    for (const next of lines) expect((await next.next()).value).toBe("ready");
    const moment = Date.now() + 200;
    for (const child of children) child.stdin.write(`${moment}\n`);
    const said = await Promise.all(lines.map(async (next) => (await next.next()).value as string));
    expect(said.filter((line) => line === "took it")).toHaveLength(1);
    for (const line of said.filter((line) => line !== "took it")) expect(line).toMatch(/is in use by process \d+/);
  } finally {
    for (const child of children) child.stdin.end();
    await Promise.all(closed);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
