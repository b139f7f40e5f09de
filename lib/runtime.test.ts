import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

// Each process waits for the same moment, tries to take the directory, holds it a moment and
// says whether it had it.
const contender = `
  const { lockDataDir } = await import(${JSON.stringify(path.resolve("lib/runtime.ts"))});
  while (Date.now() < Number(process.argv[2]));
  try {
    const release = lockDataDir(process.argv[1]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    release();
    console.log("took it");
  } catch (error) {
    console.log(error.message);
  }
`;

it("lets exactly one of several processes starting at once take a data directory", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-lock-"));
  try {
    const moment = String(Date.now() + 3000);
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", contender, dataDir, moment]),
      ),
    );
    const said = outputs.map(({ stdout }) => stdout.trim());
    expect(said.filter((line) => line === "took it")).toHaveLength(1);
    for (const line of said.filter((line) => line !== "took it")) expect(line).toMatch(/is in use by process \d+/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
