import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentInstallCommand } from "@/lib/agent-install";
import { acceptAgentDevice } from "@/testing/agents";
import { call } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { outputOf, runToExit } from "@/testing/processes";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { freePort } from "@/testing/server";
import { createAccount, isRoot, keyOnly, keyPair, scratchDir, sshPort, sshTo } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

/**
 * A device set up as a person does it: the install command the console shows, run with `sh`
 * against a real server (into a scratch directory, no systemd, the agent in the foreground of a
 * background shell), the device accepted through the API, then an OpenSSH client through the
 * gateway into it. The server's PUBLIC_URL is what the installer and the agent use.
 */
describe.skipIf(!isRoot)("installing the agent with the served installer (needs root: accounts, agent as root)", () => {
  let server: OwnServer;
  let namespace: SeededNamespace;
  let account: ReturnType<typeof createAccount>;
  let scratch: string;
  let installDir: string;
  let agent: Background | undefined;
  let key: { file: string; line: string };
  let target: string;
  let gatewayPort: number;
  const hostname = `inst-${randomBytes(3).toString("hex")}`;
  const owner = () => ({ token: namespace.owner.tenantToken, baseUrl: server.url });
  const command = (...flags: string[]) =>
    `${agentInstallCommand({ server: server.url, tenantId: namespace.tenantId, hostname })} ${flags.join(" ")}`;
  const sh = (line: string) => runToExit("sh", ["-c", line], { seconds: 120 });

  type Background = { child: ChildProcess; output: () => string; stdout: () => string; exited: Promise<void> };

  /** `line` in a shell of its own process group, which becomes the agent's (the shell and launcher exec). */
  function inBackground(line: string): Background {
    const child = spawn("sh", ["-c", line], {
      detached: true,
      env: { ...process.env, HEARTBEAT_INTERVAL: "1", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const streams = outputOf(child);
    return {
      child,
      output: () => `${streams.stdout}${streams.stderr}`,
      stdout: () => streams.stdout,
      exited: new Promise((resolve) => child.once("close", () => resolve())),
    };
  }

  async function stopAgent() {
    if (agent?.child.pid && agent.child.exitCode === null) {
      try {
        process.kill(-agent.child.pid, "SIGTERM");
      } catch (error) {
        // The group is gone already: the agent exited and Node has not reported it yet.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
      await agent.exited;
    }
  }

  const tunnelUp = (running: Background) =>
    waitFor(
      () => `the installed agent's tunnel:\n${running.output()}`,
      () => running.stdout().includes('"message":"tunnel connected"'),
      90,
    );

  beforeAll(async () => {
    const port = await freePort();
    server = await startOwnServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    namespace = await seedNamespace(undefined, { baseUrl: server.url });
    account = createAccount();
    scratch = scratchDir("das-install-");
    installDir = path.join(scratch, "agent");
  });

  afterAll(async () => {
    await stopAgent();
    account?.remove();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await server?.stop();
  });

  it("serves the installer and the bundle without credentials, of the server's version, checksums agreeing", async () => {
    const info = await call("GET", "/info", { baseUrl: server.url });
    const script = await call("GET", "/install.sh", { baseUrl: server.url });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/x-shellscript");
    expect(script.text).toContain(`SERVER_URL='${server.url}'`);
    expect(script.text).toContain(`AGENT_VERSION='${info.body.version}'`);
    const bundle = await fetch(`${server.url}/agent/agent.tar.gz`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("x-agent-version")).toBe(info.body.version);
    const sha256 = createHash("sha256")
      .update(Buffer.from(await bundle.arrayBuffer()))
      .digest("hex");
    expect(script.text).toContain(`AGENT_SHA256='${sha256}'`);
    const checksum = await call("GET", "/agent/agent.tar.gz.sha256", { baseUrl: server.url });
    expect(checksum.text).toBe(`${sha256}  agent.tar.gz\n`);
  });

  it("refuses a missing or malformed tenant id with a message, installing nothing", async () => {
    const missing = await sh(`curl -fsSL ${server.url}/install.sh | sh -s -- --dir ${installDir} --no-service`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--tenant is required");
    const malformed = await sh(`curl -fsSL ${server.url}/install.sh | sh -s -- --tenant nope --dir ${installDir}`);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("not a tenant id");
    expect(existsSync(installDir)).toBe(false);
    // A server address the device cannot reach, and one that is the device's own: the message says so.
    const unreachable = await sh(command("--dir", installDir, "--server", "http://127.0.0.1:1"));
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(
      "the download from http://127.0.0.1:1 failed: that address is the device's own",
    );
    rmSync(installDir, { recursive: true, force: true });
  });

  it("installs and configures with --no-service, printing how to start the agent (wget, no curl)", async () => {
    // A PATH with every program of this machine but curl.
    const bin = path.join(scratch, "bin");
    mkdirSync(bin);
    for (const dir of ["/usr/bin", "/bin"]) {
      for (const name of readdirSync(dir)) {
        if (name !== "curl" && !existsSync(path.join(bin, name)))
          symlinkSync(path.join(dir, name), path.join(bin, name));
      }
    }
    const wget = agentInstallCommand({
      server: server.url,
      tenantId: namespace.tenantId,
      hostname,
      downloader: "wget",
    });
    const result = await runToExit("sh", ["-c", `${wget} --dir ${installDir} --no-service`], {
      seconds: 120,
      env: { ...process.env, PATH: bin },
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const launcher = path.join(installDir, "device-access-agent");
    expect(result.stdout).toContain(`not started (--no-service): run ${launcher}`);
    expect(existsSync(path.join(installDir, "app", "agent.mjs"))).toBe(true);
    expect(existsSync(path.join(installDir, "app", "node_modules", "node-pty", "package.json"))).toBe(true);
    const config = readFileSync(path.join(installDir, "agent.env"), "utf8");
    expect(config).toContain(`SERVER_ADDRESS='${server.url}'`);
    expect(config).toContain(`TENANT_ID='${namespace.tenantId}'`);
    expect(config).toContain(`PREFERRED_HOSTNAME='${hostname}'`);
    expect(config).toContain(`AGENT_DATA_DIR='${installDir}/data'`);
  });

  it("runs again over the installation and starts the agent; the device is accepted and reached with ssh", async () => {
    // The same command again, in the foreground of a shell in the background.
    const running = inBackground(command("--dir", installDir, "--foreground"));
    agent = running;
    await acceptAgentDevice(hostname, owner()).catch((error: Error) => {
      throw new Error(`${error.message}; the installer and agent said:\n${running.output()}`);
    });
    await tunnelUp(running);
    expect(running.stdout()).toContain("starting the agent in the foreground");
    expect(existsSync(path.join(installDir, "data", "agent.key"))).toBe(true);

    key = keyPair(scratch);
    const added = await call("POST", "/api/sshkeys/public-keys", {
      ...owner(),
      body: {
        data: Buffer.from(key.line).toString("base64"),
        name: `install-${randomBytes(3).toString("hex")}`,
        filter: { hostname: `^${hostname}$` },
        username: `^${account.name}$`,
      },
    });
    expect(added.status).toBe(200);
    gatewayPort = await sshPort(server.url);
    target = `${account.name}@${namespace.name}.${hostname}@127.0.0.1`;
    const plain = await sshTo(gatewayPort, [...keyOnly(key.file), target, "id -un; exit 7"]);
    expect(plain.stdout.trim(), plain.stderr).toBe(account.name);
    expect(plain.code).toBe(7);
    // A terminal: node-pty came with the bundle and loads on this machine.
    const terminal = await sshTo(gatewayPort, [...keyOnly(key.file), "-tt", target, "tty"]);
    expect(terminal.stdout, terminal.stderr).toMatch(/\/dev\/pts\/\d+/);
    expect(running.output()).not.toContain("node-pty does not load here");
  });

  it("runs a terminal session on pipes where node-pty does not load (a device unlike the server)", async () => {
    await stopAgent();
    rmSync(path.join(installDir, "app", "node_modules", "node-pty"), { recursive: true });
    // The launcher the installer printed, by hand.
    const running = inBackground(path.join(installDir, "device-access-agent"));
    agent = running;
    await tunnelUp(running);
    const terminal = await sshTo(gatewayPort, [...keyOnly(key.file), "-tt", target, "tty; echo shell-ran"]);
    expect(terminal.stdout, terminal.stderr).toContain("not a tty");
    expect(terminal.stdout).toContain("shell-ran");
    expect(running.output()).toContain("node-pty does not load here");
  });

  it("uninstalls: the directory goes", async () => {
    await stopAgent();
    const result = await sh(`curl -fsSL ${server.url}/install.sh | sh -s -- --uninstall --dir ${installDir}`);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(installDir)).toBe(false);
  });

  // systemd as the installer sees it, in a mount namespace of the test's own: /run/systemd/system
  // and /etc/systemd/system are empty directories there, and systemctl a script that notes its calls.
  const hasMountNamespaces = isRoot && spawnSync("unshare", ["-m", "true"]).status === 0;
  it.skipIf(!hasMountNamespaces)(
    "as root with systemd: writes the unit, enables and starts it; uninstalls it",
    async () => {
      const dir = path.join(scratch, "service");
      const fake = path.join(scratch, "fake-bin");
      mkdirSync(fake);
      writeFileSync(path.join(fake, "systemctl"), `#!/bin/sh\necho "$*" >> "${scratch}/systemctl.log"\n`, {
        mode: 0o755,
      });
      const steps = [
        "set -e",
        "mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system",
        "mount -t tmpfs tmpfs /etc/systemd/system",
        `export PATH="${fake}:$PATH"`,
        command("--dir", dir),
        `cp /etc/systemd/system/device-access-agent.service "${scratch}/unit"`,
        `curl -fsSL ${server.url}/install.sh | sh -s -- --uninstall --dir ${dir}`,
        `ls -A /etc/systemd/system > "${scratch}/units-left"`,
      ];
      const result = await runToExit("unshare", ["-m", "sh", "-c", steps.join("\n")], { seconds: 120 });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain("service device-access-agent enabled and started");
      const unit = readFileSync(path.join(scratch, "unit"), "utf8");
      expect(unit).toContain(`Description=Device access agent for ${server.url}\n`);
      expect(unit).toContain(`ExecStart=${dir}/device-access-agent\n`);
      expect(unit).toContain("Restart=always\n");
      expect(unit).toContain("WantedBy=multi-user.target\n");
      expect(readFileSync(path.join(scratch, "systemctl.log"), "utf8").trim().split("\n")).toEqual([
        "daemon-reload",
        "enable device-access-agent.service",
        "restart device-access-agent.service",
        "disable --now device-access-agent.service",
        "daemon-reload",
      ]);
      expect(readFileSync(path.join(scratch, "units-left"), "utf8")).toBe("");
      expect(existsSync(dir)).toBe(false);
    },
  );
});
