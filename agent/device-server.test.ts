import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import ssh2, { type Client, type ClientChannel, type ConnectConfig } from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ed25519KeyPair } from "@/testing/ssh-keys";
import { isRoot } from "./accounts";
import { DeviceServer } from "./device-server";
import { loadDeviceKey, ServerKeyPin } from "./identity";
import { sftpServerPath } from "./processes";

const password = `pw-${randomBytes(6).toString("hex")}`;
const serverKey = ed25519KeyPair();
const otherKey = ed25519KeyPair();
const dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-test-"));
const deviceKey = loadDeviceKey(dataDir);

/** A local account for the test: created with useradd when running as root, else the current user. */
const user = isRoot() ? `agt${randomBytes(3).toString("hex")}` : userInfo().username;

let listener: Server;
let port = 0;

beforeAll(async () => {
  if (isRoot()) {
    execFileSync("useradd", ["--create-home", "--shell", "/bin/bash", "--groups", "audio", user]);
    execFileSync("chpasswd", { input: `${user}:${password}\n` });
  } else {
    console.warn("not running as root: password logins and other users are not tested");
  }
  const server = new DeviceServer(deviceKey.parsed, new ServerKeyPin(dataDir, serverKey.public));
  listener = createServer((socket) => void server.serve(socket, { ip: "127.0.0.1", port: socket.remotePort ?? 0 }));
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const address = listener.address();
  port = typeof address === "object" && address ? address.port : 0;
});

afterAll(() => {
  listener?.close();
  if (isRoot()) execFileSync("userdel", ["--remove", user], { stdio: "ignore" });
  rmSync(dataDir, { recursive: true, force: true });
});

function connect(credentials: Partial<ConnectConfig>, username = user): Promise<Client> {
  const client = new ssh2.Client();
  return new Promise((resolve, reject) => {
    client.once("ready", () => resolve(client));
    client.once("error", reject);
    client.connect({
      host: "127.0.0.1",
      port,
      username,
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => key.equals(deviceKey.parsed.getPublicSSH()),
      ...credentials,
    });
  });
}

const withGatewayKey = () => connect({ privateKey: serverKey.private });

type Result = { stdout: string; stderr: string; code?: number; signal?: string; events: string[] };

/** Collects a channel's output and its exit, and the order of exit, EOF and close. */
function collect(channel: ClientChannel): Promise<Result> {
  const result: Result = { stdout: "", stderr: "", events: [] };
  return new Promise((resolve) => {
    channel.on("data", (chunk: Buffer) => {
      result.stdout += chunk;
    });
    channel.stderr.on("data", (chunk: Buffer) => {
      result.stderr += chunk;
    });
    channel.on("exit", (code: number | null, signal?: string) => {
      result.events.push("exit");
      if (code !== null) result.code = code;
      if (signal) result.signal = signal;
    });
    channel.on("end", () => result.events.push("eof"));
    channel.on("close", () => resolve(result));
  });
}

function exec(client: Client, command: string, options: ssh2.ExecOptions = {}, input?: string): Promise<Result> {
  return new Promise((resolve, reject) =>
    client.exec(command, options, (error, channel) => {
      if (error) return reject(error);
      if (input !== undefined) channel.end(input);
      resolve(collect(channel));
    }),
  );
}

describe("logins", () => {
  it.skipIf(!isRoot())("takes the local account's password and refuses a wrong one", async () => {
    const client = await connect({ password });
    expect((await exec(client, "id -un")).stdout.trim()).toBe(user);
    client.end();
    await expect(connect({ password: `${password}x` })).rejects.toThrow(/authentication methods failed/);
  });

  it("takes the pinned server host key and no other key", async () => {
    const client = await withGatewayKey();
    expect((await exec(client, "id -un")).stdout.trim()).toBe(user);
    client.end();
    await expect(connect({ privateKey: otherKey.private })).rejects.toThrow(/authentication methods failed/);
  });

  it.skipIf(!isRoot())("refuses an expired account, and a password that must be changed first", async () => {
    try {
      execFileSync("chage", ["--lastday", "0", user]);
      await expect(connect({ password })).rejects.toThrow(/authentication methods failed/);
      const client = await withGatewayKey();
      expect((await exec(client, "id -un")).stdout.trim()).toBe(user);
      client.end();
      execFileSync("chage", ["--lastday", "-1", "--expiredate", "2000-01-01", user]);
      await expect(connect({ password })).rejects.toThrow(/authentication methods failed/);
      await expect(withGatewayKey()).rejects.toThrow(/authentication methods failed/);
    } finally {
      execFileSync("chage", ["--lastday", "-1", "--expiredate", "-1", user]);
    }
    const client = await connect({ password });
    client.end();
  });

  it("refuses an account that does not exist", async () => {
    await expect(connect({ privateKey: serverKey.private }, "no-such-user-here")).rejects.toThrow(
      /authentication methods failed/,
    );
  });
});

describe("exec", () => {
  it("relays stdout, stderr and the exit status before EOF and close", async () => {
    const client = await withGatewayKey();
    const result = await exec(client, "echo out; echo err >&2; exit 42");
    client.end();
    expect(result).toMatchObject({ stdout: "out\n", stderr: "err\n", code: 42 });
    expect(result.events).toEqual(["exit", "eof"]);
  });

  it("relays a signal that ended the command", async () => {
    const client = await withGatewayKey();
    const result = await exec(client, "kill -TERM $$");
    client.end();
    expect(result.signal).toBe("SIGTERM"); // "TERM" on the wire; ssh2 adds the prefix
    expect(result.code).toBeUndefined();
  });

  it("forwards a client's signal to the command", async () => {
    const client = await withGatewayKey();
    const result = await new Promise<Result>((resolve, reject) =>
      client.exec("echo started; sleep 30", (error, channel) => {
        if (error) return reject(error);
        channel.once("data", () => channel.signal("INT"));
        resolve(collect(channel));
      }),
    );
    client.end();
    expect(result.signal).toBe("SIGINT");
  });

  it("hangs up what the command started when the session goes away", async () => {
    const marker = `${100 + Math.floor(Math.random() * 800)}.${randomBytes(2).readUInt16BE()}`;
    const isRunning = () => {
      try {
        execFileSync("pgrep", ["-f", `sleep ${marker}`]);
        return true;
      } catch {
        return false;
      }
    };
    const client = await withGatewayKey();
    await new Promise<void>((resolve, reject) =>
      client.exec(`sleep ${marker} & echo started; wait`, (error, channel) => {
        if (error) return reject(error);
        channel.once("data", () => resolve());
      }),
    );
    expect(isRunning()).toBe(true);
    client.end();

    for (let tries = 0; isRunning() && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isRunning()).toBe(false);
  });

  it("runs as the account, with its groups, home and a fresh environment plus the client's locale", async () => {
    const client = await withGatewayKey();
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, run on the device
    const result = await exec(client, 'id -u; id -G; pwd; echo "$HOME|$USER|$LOGNAME|$SHELL|$LANG|${SECRET-unset}"', {
      env: { LANG: "C.UTF-8", SECRET: "leak" } as Record<string, string> as NodeJS.ProcessEnv,
    });
    client.end();
    const account = execFileSync("getent", ["passwd", user], { encoding: "utf8" }).trim().split(":");
    const groups = execFileSync("id", ["-G", user], { encoding: "utf8" }).trim();
    const [uid, shownGroups, cwd, environment] = result.stdout.trim().split("\n");
    expect(uid).toBe(account[2]);
    expect(shownGroups?.split(" ").sort()).toEqual(groups.split(" ").sort());
    expect(cwd).toBe(account[5]);
    expect(environment).toBe(`${account[5]}|${user}|${user}|${account[6]}|C.UTF-8|unset`);
  });

  it("streams large input and output both ways", async () => {
    const client = await withGatewayKey();
    const size = 8 * 1024 * 1024;
    const written = await exec(client, "wc -c", {}, "x".repeat(size));
    const read = await exec(client, `head -c ${size} /dev/zero | wc -c; head -c ${size} /dev/zero`);
    client.end();
    expect(written.stdout.trim()).toBe(String(size));
    expect(read.stdout.length).toBe(size + String(size).length + 1);
  });
});

describe("shell", () => {
  it("runs the login shell on a pseudo-terminal of the requested size, and honours resizes", async () => {
    const client = await withGatewayKey();
    const result = await new Promise<Result>((resolve, reject) =>
      client.shell({ term: "xterm-256color", cols: 100, rows: 30 }, (error, channel) => {
        if (error) return reject(error);
        const done = collect(channel);
        channel.write("stty size; echo TERM=$TERM; tty\n");
        setTimeout(() => {
          channel.setWindow(40, 120, 0, 0);
          channel.write("stty size; exit 3\n");
        }, 300);
        resolve(done);
      }),
    );
    client.end();
    expect(result.stdout).toContain("30 100");
    expect(result.stdout).toContain("TERM=xterm-256color");
    expect(result.stdout).toMatch(/\/dev\/pts\/\d+/);
    expect(result.stdout).toContain("40 120");
    expect(result.code).toBe(3);
  });
});

describe("sftp and forwarding", () => {
  it.skipIf(!sftpServerPath())("serves sftp as the account", async () => {
    const client = await withGatewayKey();
    const home = execFileSync("getent", ["passwd", user], { encoding: "utf8" }).split(":")[5] ?? "";
    const content = randomBytes(200_000);
    const sftp = await new Promise<ssh2.SFTPWrapper>((resolve, reject) =>
      client.sftp((error, wrapper) => (error ? reject(error) : resolve(wrapper))),
    );
    const local = path.join(dataDir, "upload");
    writeFileSync(local, content);
    const remote = `${home}/sftp-${randomBytes(3).toString("hex")}`;
    await new Promise<void>((resolve, reject) =>
      sftp.fastPut(local, remote, (error) => (error ? reject(error) : resolve())),
    );
    client.end();
    expect(readFileSync(remote).equals(content)).toBe(true);
    expect(execFileSync("stat", ["-c", "%U", remote], { encoding: "utf8" }).trim()).toBe(user);
    rmSync(remote);
  });

  it("connects direct-tcpip channels from the device", async () => {
    const target = createServer((socket) => socket.end("hello from the target"));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const targetPort = (target.address() as { port: number }).port;
    const client = await withGatewayKey();
    const received = await new Promise<string>((resolve, reject) =>
      client.forwardOut("127.0.0.1", 5555, "127.0.0.1", targetPort, (error, channel) => {
        if (error) return reject(error);
        let text = "";
        channel.on("data", (chunk: Buffer) => {
          text += chunk;
        });
        channel.on("close", () => resolve(text));
      }),
    );
    client.end();
    target.close();
    expect(received).toBe("hello from the target");
  });

  it("refuses remote forwarding", async () => {
    const client = await withGatewayKey();
    const refused = await new Promise<boolean>((resolve) =>
      client.forwardIn("127.0.0.1", 0, (error) => resolve(!!error)),
    );
    client.end();
    expect(refused).toBe(true);
  });
});
