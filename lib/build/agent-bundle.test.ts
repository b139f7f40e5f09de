import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentInstall } from "../services/agent-install";
import { version } from "../version";
import { buildAgentInstall, renderInstallScript, tarGz } from "./agent-bundle";

const root = path.resolve(import.meta.dirname, "../..");

describe("the agent's bundle", () => {
  let built: AgentInstall;
  let dir: string;

  beforeAll(async () => {
    built = await buildAgentInstall(root, "https://devices.example.test:8443");
    dir = mkdtempSync(path.join(tmpdir(), "das-bundle-"));
    writeFileSync(path.join(dir, "agent.tar.gz"), built.tarball);
    execFileSync("tar", ["-xzf", "agent.tar.gz"], { cwd: dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs on plain Node.js, without tsx: the agent's usage for missing options", () => {
    const run = spawnSync(process.execPath, [path.join(dir, "agent.mjs")], {
      encoding: "utf8",
      env: {} as NodeJS.ProcessEnv,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain("--tenant-id");
  });

  it("carries node-pty with this machine's addon, which loads from beside the bundle", () => {
    expect(built.ptyPlatform).toBe(`${process.platform}-${process.arch}`);
    const probe = `import { createRequire } from "node:module";
      const pty = createRequire(${JSON.stringify(path.join(dir, "agent.mjs"))})("node-pty");
      process.stdout.write(typeof pty.spawn);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" });
    expect(run.stdout, run.stderr).toBe("function");
  });

  it("is the server's version, and the same sources make the same bytes", async () => {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "device-access-agent", version });
    const again = await buildAgentInstall(root, "https://devices.example.test:8443");
    expect(again.sha256).toBe(built.sha256);
  });

  it("fills the installer with the server's address, the version and the checksum; sh reads it", () => {
    expect(built.installer).toContain("SERVER_URL='https://devices.example.test:8443'\n");
    expect(built.installer).toContain(`AGENT_VERSION='${version}'\n`);
    expect(built.installer).toContain(`AGENT_SHA256='${built.sha256}'\n`);
    expect(built.installer).not.toMatch(/@[A-Z0-9_]+@/);
    const help = spawnSync("sh", ["-s", "--", "--help"], { input: built.installer, encoding: "utf8" });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain(`device access agent ${version} for https://devices.example.test:8443`);
  });
});

describe("renderInstallScript", () => {
  it("quotes values for sh, and refuses a placeholder it has no value for", () => {
    expect(renderInstallScript("A=@A@\n", { A: "it's" })).toBe("A='it'\\''s'\n");
    expect(() => renderInstallScript("B=@B@", {})).toThrow("@B@");
  });
});

describe("tarGz", () => {
  it("writes paths longer than 100 bytes with the ustar prefix, and lists parent directories", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "das-tar-"));
    try {
      const long = `${"d".repeat(60)}/${"e".repeat(60)}/file.txt`;
      writeFileSync(path.join(dir, "t.tar.gz"), tarGz([{ name: long, mode: 0o644, data: Buffer.from("hello") }]));
      const listed = execFileSync("tar", ["-tzf", "t.tar.gz"], { cwd: dir, encoding: "utf8" }).trim().split("\n");
      expect(listed).toEqual([`${"d".repeat(60)}/`, `${"d".repeat(60)}/${"e".repeat(60)}/`, long]);
      execFileSync("tar", ["-xzf", "t.tar.gz"], { cwd: dir });
      expect(readFileSync(path.join(dir, long), "utf8")).toBe("hello");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
