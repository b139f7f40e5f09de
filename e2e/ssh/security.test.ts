import { createPrivateKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import ssh2, { type AnyAuthMethod, type IdentityCallback, type SignCallback, type SigningRequestOptions } from "ssh2";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket, { createWebSocketStream } from "ws";
import { authDevice, type RunningAgent, signedBody } from "@/testing/agents";
import { call } from "@/testing/client";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { type RunningServer, startServer } from "@/testing/server";
import {
  clientOptions,
  createAccount,
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

const tunnelUrl = () => `${inject("baseUrl").replace(/^http/, "ws")}/agent/tunnel`;

/** The HTTP status with which the tunnel endpoint refuses an upgrade (0 when it upgrades). */
function tunnelUpgradeStatus(token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(tunnelUrl(), { headers: token ? { authorization: `Bearer ${token}` } : {} });
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? -1));
    socket.once("open", () => {
      socket.close();
      resolve(0);
    });
    socket.once("error", reject);
  });
}

/**
 * An SSH agent that lists one public key `copies` times and never signs: each listing is a
 * public-key query, and each query the server answers is a refused signing request.
 */
class QueryingAgent extends ssh2.BaseAgent<string> {
  answered = 0;

  constructor(
    private readonly publicKey: string,
    private readonly copies: number,
  ) {
    super();
  }

  getIdentities(callback: IdentityCallback<string>) {
    callback(undefined, Array(this.copies).fill(this.publicKey));
  }

  sign(_key: string, _data: Buffer, options: SigningRequestOptions | SignCallback, callback?: SignCallback) {
    this.answered += 1;
    const refuse = typeof options === "function" ? options : callback;
    refuse?.(new Error("this agent never signs"));
  }
}

type TestTunnel = { close: () => void };

/**
 * Opens a tunnel with the device token as an agent would, logging in with `privateKey` as the
 * device uid: the open tunnel once the server accepted the login and the `tcpip-forward`.
 */
function openTunnel(token: string, uid: string, privateKey: string): Promise<TestTunnel | undefined> {
  return new Promise((resolve) => {
    const socket = new WebSocket(tunnelUrl(), { headers: { authorization: `Bearer ${token}` } });
    socket.once("unexpected-response", () => resolve(undefined));
    socket.once("open", () => {
      const client = new ssh2.Client();
      const close = () => {
        client.end();
        socket.close();
      };
      client.once("ready", () =>
        client.forwardIn("device", 22, (error) => {
          if (!error) return resolve({ close });
          close();
          resolve(undefined);
        }),
      );
      client.once("error", () => {
        close();
        resolve(undefined);
      });
      client.connect({ sock: createWebSocketStream(socket), username: uid, privateKey, readyTimeout: 20_000 });
    });
  });
}

describe("the tunnel endpoint", () => {
  it("refuses an upgrade without a device token (401) and for a device neither accepted nor pending (403)", async () => {
    expect(await tunnelUpgradeStatus()).toBe(401);
    expect(await tunnelUpgradeStatus("not-a-token")).toBe(401);
    const namespace = await seedNamespace();
    const rejected = await seedDevice(namespace, { status: "reject" });
    expect(await tunnelUpgradeStatus(rejected.token)).toBe(403);
    // A pending device's tunnel waits for the accept (it carries no session until then).
    const pending = await seedDevice(namespace);
    expect(await tunnelUpgradeStatus(pending.token)).toBe(0);
  });
});

describe("the gateway's handshake deadline", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ SSH_LOGIN_GRACE_SECONDS: "1" });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(server?.dataDir ?? "", { recursive: true, force: true });
  });

  it("drops a client that connects and never logs in", async () => {
    const port = await sshPort(server.url);
    const socket = connect(port, "127.0.0.1");
    let isClosed = false;
    socket.on("data", () => {});
    socket.once("close", () => {
      isClosed = true;
    });
    await waitFor("the gateway to drop the idle client", () => isClosed, 20);
  });
});

describe("the gateway's cap on connections not logged in, per source address", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ SSH_MAX_UNAUTHENTICATED_PER_SOURCE: "3" });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(server?.dataDir ?? "", { recursive: true, force: true });
  });

  /** A TCP connection to the gateway: whether it got the server's version line, or was closed first. */
  function open(port: number, from = "127.0.0.1") {
    const socket = connect({ port, host: "127.0.0.1", localAddress: from });
    const outcome = new Promise<"greeted" | "closed">((resolve) => {
      socket.once("data", () => resolve("greeted"));
      socket.once("close", () => resolve("closed"));
    });
    socket.on("error", () => {});
    return { socket, outcome };
  }

  it("closes one connection too many from an address at once; others and freed places are served", async () => {
    const port = await sshPort(server.url);
    const held = [open(port), open(port), open(port)];
    expect(await Promise.all(held.map((connection) => connection.outcome))).toEqual(["greeted", "greeted", "greeted"]);
    expect(await open(port).outcome).toBe("closed");
    // Another address has places of its own.
    const other = open(port, "127.0.0.2");
    expect(await other.outcome).toBe("greeted");
    // A connection that ends frees its place.
    const freed = new Promise((resolve) => held[0]?.socket.once("close", resolve));
    held[0]?.socket.destroy();
    await freed;
    await waitFor("the freed place to be taken", async () => {
      const next = open(port);
      const outcome = await next.outcome;
      next.socket.destroy();
      return outcome === "greeted";
    });
    for (const connection of [...held, other]) connection.socket.destroy();
  });
});

describe.skipIf(!isRoot)("the SSH security floor with a real agent (needs root)", () => {
  let testDevice: TestDevice;
  let namespace: SeededNamespace;
  let agent: RunningAgent;
  let account: TestDevice["account"];
  let port: number;
  let deviceUid: string;
  let scratch: string;
  let key: { file: string; line: string };
  let target: string;
  const owner = () => ({ token: namespace.owner.tenantToken });
  const ssh = (args: string[], input = "") => sshTo(port, args, input);
  /** The agent's call as one who can read the device would make it from what the API shows. */
  async function publicIdentityBody() {
    const device = (await call("GET", `/api/devices/${deviceUid}`, owner())).body;
    return {
      info: device.info,
      sessions: [],
      hostname: agent.hostname,
      identity: device.identity,
      public_key: device.public_key,
      tenant_id: namespace.tenantId,
    };
  }
  const sessionCount = async () =>
    (await call("GET", "/api/sessions?per_page=1", owner())).headers.get("x-total-count");

  beforeAll(async () => {
    port = await sshPort();
    scratch = scratchDir();
    testDevice = await startDevice();
    ({ namespace, account, agent, deviceUid, target } = testDevice);
    key = keyPair(scratch);
    const added = await call("POST", "/api/sshkeys/public-keys", {
      ...owner(),
      body: {
        data: Buffer.from(key.line).toString("base64"),
        name: "floor",
        filter: { hostname: ".*" },
        username: ".*",
      },
    });
    expect(added.status).toBe(200);
  });

  afterAll(async () => {
    await testDevice?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("gives no device token and no tunnel to one who knows only the device's public identity", async () => {
    const body = await publicIdentityBody();
    const unsigned = await authDevice(body, { unsigned: true });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.message).toMatch(/must sign its call with the device key/);
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const forged = await authDevice(signedBody(body, { privateKey: otherKey }));
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ message: "the proof's signature does not verify with the device's public key" });
    // Even the device's own token opens no tunnel without the device's private key.
    const deviceKey = createPrivateKey(readFileSync(path.join(agent.dataDir, "agent.key")));
    const { token } = (await authDevice(signedBody(body, { privateKey: deviceKey }))).body;
    const otherPem = otherKey.export({ type: "pkcs1", format: "pem" }).toString();
    expect(await openTunnel(token, deviceUid, otherPem)).toBeUndefined();
    expect(await ssh([...keyOnly(key.file), target, "echo still-here"])).toMatchObject({
      code: 0,
      stdout: "still-here\n",
    });
  });

  it("lets a newer tunnel proven with the device key replace the older one", async () => {
    const privateKey = createPrivateKey(readFileSync(path.join(agent.dataDir, "agent.key")));
    const signed = await authDevice(signedBody(await publicIdentityBody(), { privateKey }));
    expect(signed.status).toBe(200);
    const credentials = signed.body;
    const deviceKey = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const since = agent.output().length;
    const newer = await openTunnel(credentials.token, deviceUid, deviceKey);
    expect(newer).toBeDefined();
    // The agent's own tunnel was closed by the newer one...
    await waitFor("the agent to lose its tunnel", () => agent.output().slice(since).includes("tunnel unavailable"));
    newer?.close();
    // ...and the agent, reconnecting, replaces it in turn.
    await agent.tunnelUp(since);
    expect(await ssh([...keyOnly(key.file), target, "echo back"])).toMatchObject({ code: 0, stdout: "back\n" });
  });

  it("answers a public-key query without a signature with no session row and no call to the device", async () => {
    const before = await sessionCount();
    const agentOutput = agent.output().length;
    const query = await ssh([
      "-v",
      "-o",
      "BatchMode=yes",
      "-o",
      "IdentitiesOnly=yes",
      "-i",
      `${key.file}.pub`,
      target,
      "true",
    ]);
    expect(query.code).toBe(255);
    expect(query.stderr).toContain("Server accepts key");
    expect(await sessionCount()).toBe(before);
    expect(agent.output().slice(agentOutput)).not.toMatch(/"message":"(login|authentication failed)"/);
  });

  /**
   * Tries `methods` in turn on one connection as `username`: how many the client had begun when
   * the connection closed (all of them when the client ran out first).
   */
  async function triedBeforeClose(username: string, methods: AnyAuthMethod[]): Promise<number> {
    let tried = 0;
    const client = new ssh2.Client();
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.on("error", () => {});
    client.connect({
      host: "127.0.0.1",
      port,
      username,
      authHandler: (_methodsLeft, _partial, next) => {
        const method = methods[tried];
        if (!method) return next(false as never);
        tried += 1;
        next(method);
      },
      readyTimeout: 60_000,
    });
    await closed;
    return tried;
  }
  const nobody = () => `nobody-${randomBytes(3).toString("hex")}@${namespace.name}.${agent.hostname}`;
  const wrongPasswords = (username: string, count: number): AnyAuthMethod[] =>
    Array.from({ length: count }, (_, index) => ({ type: "password", username, password: `guess-${index}` }));

  it("drops a connection after 6 refused attempts", async () => {
    const username = nobody();
    // The client may begin a 7th before it sees the connection close.
    expect(await triedBeforeClose(username, wrongPasswords(username, 20))).toBeLessThanOrEqual(7);
  });

  it("drops a connection after it asked 6 times whether an admitted key would do", async () => {
    const username = nobody();
    const queries = new QueryingAgent(key.line, 20);
    await triedBeforeClose(username, [{ type: "agent", username, agent: queries }]);
    // The client asks for a signature after each answer, so 14 keys went unasked.
    expect(queries.answered).toBe(6);
  });

  it("counts public-key queries and wrong passwords toward one limit", async () => {
    const first = nobody();
    const queriesAfter = new QueryingAgent(key.line, 20);
    await triedBeforeClose(first, [
      ...wrongPasswords(first, 3),
      { type: "agent", username: first, agent: queriesAfter },
    ]);
    expect(queriesAfter.answered).toBe(3);

    const second = nobody();
    const queriesBefore = new QueryingAgent(key.line, 3);
    const passwordsTried =
      (await triedBeforeClose(second, [
        { type: "agent", username: second, agent: queriesBefore },
        ...wrongPasswords(second, 20),
      ])) - 1;
    expect(queriesBefore.answered).toBe(3);
    // 3 refused passwords close it; the client may begin a 4th before it sees the close.
    expect(passwordsTried).toBeGreaterThanOrEqual(3);
    expect(passwordsTried).toBeLessThanOrEqual(4);
  });

  it("logs in an OpenSSH client that offers 5 keys the namespace does not know before the right one", async () => {
    const unknownKeys = Array.from({ length: 5 }, () => keyPair(scratch).file);
    const login = await ssh([
      "-o",
      "BatchMode=yes",
      "-o",
      "IdentitiesOnly=yes",
      ...[...unknownKeys, key.file].flatMap((file) => ["-i", file]),
      target,
      "echo in",
    ]);
    expect(login).toMatchObject({ code: 0, stdout: "in\n" });
  });

  it("locks the (source, account on the device) pair after 3 failed passwords, however the login is spelled", async () => {
    const locked = createAccount();
    try {
      const byUid = `${locked.name}@${deviceUid}@127.0.0.1`;
      const byName = `${locked.name}@${namespace.name}.${agent.hostname}@127.0.0.1`;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const wrong = await sshWithPassword(port, "wrong", ["-o", "NumberOfPasswordPrompts=1", byUid, "true"]);
        expect(wrong.code).not.toBe(0);
      }
      // The right password is refused too, under either spelling of the same account and device.
      for (const login of [byUid, byName]) {
        expect((await sshWithPassword(port, locked.password, [login, "true"])).code, login).not.toBe(0);
      }
      // Another account on the device, from the same source, is not locked.
      const other = await sshWithPassword(port, account.password, [target, "true"]);
      expect(other.code).toBe(0);
    } finally {
      locked.remove();
    }
  });

  it("refuses remote forwarding, agent forwarding, other subsystems and environment besides LANG and LC_*", async () => {
    const remote = await ssh([
      ...keyOnly(key.file),
      "-o",
      "ExitOnForwardFailure=yes",
      "-R",
      "0:127.0.0.1:9",
      target,
      "true",
    ]);
    expect(remote.code).toBe(255);
    expect(remote.stderr).toContain("remote port forwarding failed");

    const env = await ssh([
      ...keyOnly(key.file),
      "-o",
      "SetEnv=LC_TEST=kept FOO_TEST=dropped",
      target,
      'echo "[$LC_TEST][$FOO_TEST]"',
    ]);
    expect(env).toMatchObject({ code: 0, stdout: "[kept][]\n" });

    const subsystem = await ssh([...keyOnly(key.file), "-s", target, "not-sftp"]);
    expect(subsystem.code).not.toBe(0);

    const forwardedAgent = await run("env", [
      "SSH_AUTH_SOCK=/nonexistent/agent.sock",
      "ssh",
      "-p",
      String(port),
      ...clientOptions,
      ...keyOnly(key.file),
      "-A",
      target,
      'echo "[$SSH_AUTH_SOCK]"',
    ]);
    expect(forwardedAgent).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  it("drops the tunnel when the device is rejected", async () => {
    const rejected = await call("PATCH", `/api/devices/${deviceUid}/reject`, owner());
    expect(rejected.status).toBe(200);
    const refused = await ssh([...keyOnly(key.file), target, "true"]);
    expect(refused.code).toBe(255);
  });
});
