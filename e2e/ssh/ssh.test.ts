import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import ssh2 from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningAgent } from "@/testing/agents";
import { call } from "@/testing/client";
import { seedDenyingRule } from "@/testing/seeds/firewall-rules";
import type { SeededNamespace } from "@/testing/seeds/namespaces";
import { freePort } from "@/testing/server";
import {
  clientOptions,
  isRoot,
  keyOnly,
  keyPair,
  run,
  scratchDir,
  sshPort,
  sshTo,
  sshWithPassword,
  startDevice,
  type TestDevice,
} from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

type Session = {
  uid: string;
  username: string;
  type: string;
  active: boolean;
  authenticated: boolean;
  ip_address: string;
  recorded: boolean;
};

const sha256 = (file: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });

describe.skipIf(!isRoot)("SSH through the gateway to a real agent (needs root: test accounts, agent as root)", () => {
  let namespace: SeededNamespace;
  let device: TestDevice;
  let agent: RunningAgent;
  let account: TestDevice["account"];
  let port: number;
  let deviceUid: string;
  let scratch: string;
  let key: { file: string; line: string };
  let target: string;
  const owner = () => ({ token: namespace.owner.tenantToken });

  const ssh = (args: string[], input = "") => sshTo(port, args, input);

  async function addKey(line: string, rules: { filter: object; username: string }) {
    const response = await call("POST", "/api/sshkeys/public-keys", {
      ...owner(),
      body: { data: Buffer.from(line).toString("base64"), name: `key-${randomBytes(3).toString("hex")}`, ...rules },
    });
    expect(response.status).toBe(200);
  }

  /** A key login while a firewall rule denies the account is refused. */
  async function expectDeniedByRule() {
    const rule = await seedDenyingRule(namespace, `^${account.name}$`);
    try {
      expect((await ssh([...keyOnly(key.file), target, "true"])).code).toBe(255);
    } finally {
      await rule.remove();
    }
  }

  async function sessionsOf(username: string): Promise<Session[]> {
    const response = await call("GET", "/api/sessions?per_page=100", owner());
    return (response.body as Session[]).filter((session) => session.username === username);
  }

  beforeAll(async () => {
    port = await sshPort();
    scratch = scratchDir();
    device = await startDevice();
    ({ namespace, account, agent, deviceUid, target } = device);
    key = keyPair(scratch);
    await addKey(key.line, { filter: { hostname: `^${agent.hostname}$` }, username: `^${account.name}$` });
  });

  afterAll(async () => {
    await device?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("logs in with the local account's password and relays the exit code", async () => {
    const result = await sshWithPassword(port, account.password, [target, "id -un; exit 3"]);
    expect(result.stdout.trim()).toBe(account.name);
    expect(result.code).toBe(3);
    const [session] = await sessionsOf(account.name);
    expect(session).toMatchObject({ type: "exec", authenticated: true, ip_address: "127.0.0.1" });
  });

  it("relays a command's signal before closing the channel", async () => {
    const client = new ssh2.Client();
    const ready = new Promise<void>((resolve, reject) => client.once("ready", resolve).once("error", reject));
    client.connect({
      host: "127.0.0.1",
      port,
      username: `${account.name}@${namespace.name}.${agent.hostname}`,
      privateKey: readFileSync(key.file),
    });
    await ready;
    const exit = await new Promise<unknown[]>((resolve, reject) =>
      client.exec("kill -TERM $$", (error, channel) => {
        if (error) return reject(error);
        let status: unknown[] = [];
        channel.on("exit", (...args: unknown[]) => {
          status = args;
        });
        channel.on("close", () => resolve(status));
        channel.resume();
      }),
    );
    client.end();
    expect(exit.slice(0, 2)).toEqual([null, "SIGTERM"]);
  });

  it("refuses a wrong password, and records the refused session", async () => {
    const before = (await sessionsOf(account.name)).length;
    const result = await sshWithPassword(port, "not-the-password", ["-o", "NumberOfPasswordPrompts=1", target, "true"]);
    expect(result.code).not.toBe(0);
    const sessions = await sessionsOf(account.name);
    expect(sessions.length).toBe(before + 1);
    const refused = sessions.find((session) => !session.authenticated);
    // The row is ended once the server has seen the connection close.
    await waitFor("the refused session to end", async () => {
      return (await sessionsOf(account.name)).find((session) => session.uid === refused?.uid)?.active === false;
    });
  });

  it("logs in with a registered key, by namespace and device name or by device uid", async () => {
    const byName = await ssh([...keyOnly(key.file), target, "echo by-name"]);
    expect(byName).toMatchObject({ code: 0, stdout: "by-name\n" });
    const byUid = await ssh([...keyOnly(key.file), `${account.name}@${deviceUid}@127.0.0.1`, "echo by-uid"]);
    expect(byUid).toMatchObject({ code: 0, stdout: "by-uid\n" });
  });

  it("refuses a key whose username pattern or filter does not match, or a denying firewall rule", async () => {
    // The key's username pattern names the test account only.
    const asRoot = await ssh([...keyOnly(key.file), `root@${namespace.name}.${agent.hostname}@127.0.0.1`, "true"]);
    expect(asRoot.code).toBe(255);
    expect(asRoot.stdout).toBe("");

    const otherDevices = keyPair(scratch);
    await addKey(otherDevices.line, { filter: { hostname: "^some-other-device$" }, username: ".*" });
    expect((await ssh([...keyOnly(otherDevices.file), target, "true"])).code).toBe(255);

    await expectDeniedByRule();
    expect((await ssh([...keyOnly(key.file), target, "true"])).code).toBe(0);
  });

  it("copies 50 MB there and back with scp, unchanged", async () => {
    const original = path.join(scratch, "payload.bin");
    writeFileSync(original, randomBytes(50 * 1024 * 1024));
    const remote = `${account.home}/payload.bin`;
    const scp = (args: string[]) => run("scp", ["-P", String(port), ...clientOptions, ...keyOnly(key.file), ...args]);
    expect((await scp([original, `${target}:${remote}`])).code).toBe(0);
    const back = path.join(scratch, "payload.back");
    expect((await scp([`${target}:${remote}`, back])).code).toBe(0);
    expect(await sha256(back)).toBe(await sha256(original));
    expect(await sha256(remote)).toBe(await sha256(original));
  });

  it("lists a directory with sftp", async () => {
    const directory = `${account.home}/listing`;
    mkdirSync(directory);
    writeFileSync(path.join(directory, "alpha.txt"), "a");
    writeFileSync(path.join(directory, "beta.txt"), "b");
    const result = await run(
      "sftp",
      ["-P", String(port), ...clientOptions, ...keyOnly(key.file), "-b", "-", target],
      `ls -1 ${directory}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${directory}/alpha.txt`);
    expect(result.stdout).toContain(`${directory}/beta.txt`);
  });

  it("forwards a local port (ssh -L) through the device", async () => {
    const web: Server = createServer((_request, response) => response.end("hello through the tunnel"));
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const webPort = (web.address() as { port: number }).port;
    const localPort = await freePort();
    const forward = spawn("ssh", [
      "-p",
      String(port),
      ...clientOptions,
      ...keyOnly(key.file),
      "-N",
      "-o",
      "ExitOnForwardFailure=yes",
      "-L",
      `127.0.0.1:${localPort}:127.0.0.1:${webPort}`,
      target,
    ]);
    try {
      let body = "";
      await waitFor("the forwarded port", async () => {
        body = await fetch(`http://127.0.0.1:${localPort}/`)
          .then((response) => response.text())
          .catch(() => "");
        return body !== "";
      });
      expect(body).toBe("hello through the tunnel");
    } finally {
      forward.kill();
      web.close();
    }
  });

  it("shows the announcement, records the terminal and plays back what was typed", async () => {
    const settings = { session_record: true, connection_announcement: "Authorized use only" };
    const edit = await call("PUT", `/api/namespaces/${namespace.tenantId}`, { ...owner(), body: { settings } });
    expect(edit.status).toBe(200);
    const marker = `typed-${randomBytes(4).toString("hex")}`;
    const result = await ssh(["-tt", ...keyOnly(key.file), target], `echo ${marker}\nexit 0\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Authorized use only");
    expect(result.stdout).toContain(marker);

    const [session] = (await sessionsOf(account.name)).filter((row) => row.type === "shell");
    expect(session).toMatchObject({ recorded: true, authenticated: true });
    await waitFor("the shell session to end", async () => {
      return (await sessionsOf(account.name)).find((row) => row.uid === session?.uid)?.active === false;
    });
    let frames: { message: string; time: string }[] = [];
    await waitFor("the recording", async () => {
      frames = (await call("GET", `/api/sessions/${session?.uid}/play`, owner())).body;
      return frames
        .map((frame) => frame.message)
        .join("")
        .includes(marker);
    });
    const times = frames.map((frame) => Date.parse(frame.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      ...owner(),
      body: { settings: { session_record: false, connection_announcement: "" } },
    });
  });

  it("ends a live session closed through the API", async () => {
    const known = new Set((await sessionsOf(account.name)).map((session) => session.uid));
    const long = ssh([...keyOnly(key.file), target, "sleep 600"]);
    let live: Session | undefined;
    await waitFor("the live session", async () => {
      live = (await sessionsOf(account.name)).find(
        (session) => !known.has(session.uid) && session.active && session.authenticated,
      );
      return live !== undefined;
    });
    const closed = await call("POST", `/api/sessions/${live?.uid}/close`, { ...owner(), body: { device: deviceUid } });
    expect(closed.status).toBeLessThan(300);
    const result = await long;
    expect(result.code).not.toBe(0);
    expect((await sessionsOf(account.name)).find((session) => session.uid === live?.uid)?.active).toBe(false);
  });

  it("records every login decision in the namespace's audit trail, with the reason of a refusal", async () => {
    type Entry = {
      actor: { type: string; id: string; name: string };
      source: string;
      outcome: string;
      details: Record<string, string>;
    };
    const logins = async () =>
      (await call("GET", `/api/audit?action=ssh.login&target=${deviceUid}&per_page=100`, owner())).body as Entry[];
    const known = (await logins()).length;
    await sshWithPassword(port, "not-the-password", ["-o", "NumberOfPasswordPrompts=1", target, "true"]);
    await expectDeniedByRule();
    expect((await ssh([...keyOnly(key.file), target, "true"])).code).toBe(0);
    const [allowed, denied, wrongPassword] = (await logins()).slice(0, 3);
    expect((await logins()).length).toBe(known + 3);
    expect(allowed).toMatchObject({
      outcome: "success",
      source: "127.0.0.1",
      actor: { type: "ssh", name: account.name },
    });
    expect(allowed?.actor.id).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect(denied).toMatchObject({ outcome: "failure", actor: { id: allowed?.actor.id } });
    expect(denied?.details.reason).toMatch(/^firewall rule #\d+/);
    expect(wrongPassword).toMatchObject({
      outcome: "failure",
      actor: { type: "ssh", id: "password", name: account.name },
    });
    expect(wrongPassword?.details.reason).not.toBe("");
  });
});
