import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call } from "@/testing/client";
import { seedDenyingRule } from "@/testing/seeds/firewall-rules";
import { type SeededNamespace, seedMember } from "@/testing/seeds/namespaces";
import {
  createAccount,
  isRoot,
  openTerminal,
  sshPort,
  sshWithPassword,
  startDevice,
  type TestDevice,
} from "@/testing/ssh";
import { browserSigningKey } from "@/testing/ssh-keys";
import { waitFor } from "@/testing/wait";

describe.skipIf(!isRoot)("the browser terminal (needs root: a test account, the agent as root)", () => {
  let testDevice: TestDevice;
  let namespace: SeededNamespace;
  let account: TestDevice["account"];
  let deviceUid: string;
  // PUBLIC_URL is unset on the test server: its origin is http://localhost:PORT.
  const origin = `http://localhost:${new URL(inject("baseUrl")).port}`;

  const tokenFor = async (token = namespace.owner.tenantToken, password = account.password) => {
    const response = await call("POST", "/ws/ssh", {
      token,
      body: { device: deviceUid, username: account.name, password },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.token as string;
  };

  beforeAll(async () => {
    testDevice = await startDevice();
    ({ namespace, account, deviceUid } = testDevice);
  });

  afterAll(async () => {
    await testDevice?.stop();
  });

  it("runs a shell: typed bytes in, output out, resizes, a session row and its recording", async () => {
    const settings = { session_record: true, connection_announcement: "Browser welcome" };
    await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      token: namespace.owner.tenantToken,
      body: { settings },
    });
    const terminal = await openTerminal(await tokenFor(), origin, { cols: 100, rows: 30 });
    const marker = `web-${randomBytes(4).toString("hex")}`;
    terminal.socket.send(Buffer.from(`echo ${marker}; stty size\n`));
    await waitFor("the command's output", () => terminal.output().includes("30 100"));
    terminal.socket.send(JSON.stringify({ type: "resize", cols: 120, rows: 40 }));
    terminal.socket.send(Buffer.from("stty size\n"));
    await waitFor("the resized terminal", () => terminal.output().includes("40 120"));
    terminal.socket.send(Buffer.from("exit\n"));
    await terminal.closed;
    expect(terminal.output()).toContain("Browser welcome");
    expect(terminal.output()).toContain(marker);

    const sessions = (await call("GET", "/api/sessions", { token: namespace.owner.tenantToken })).body;
    const [session] = sessions;
    expect(session).toMatchObject({
      username: account.name,
      authenticated: true,
      recorded: true,
      device_uid: deviceUid,
    });
    await waitFor("the session to end", async () => {
      const row = await call("GET", `/api/sessions/${session.uid}`, { token: namespace.owner.tenantToken });
      return row.body.active === false;
    });
    const frames = (await call("GET", `/api/sessions/${session.uid}/play`, { token: namespace.owner.tenantToken }))
      .body;
    expect(frames.map((frame: { message: string }) => frame.message).join("")).toContain(marker);
    expect(frames.at(-1)).toMatchObject({ width: 120, height: 40 });
  });

  it("refuses another origin, a used token, an unknown token and a wrong password", async () => {
    await expect(openTerminal(await tokenFor(), "https://evil.example.com")).rejects.toThrow("HTTP 403");
    await expect(openTerminal(await tokenFor(), "")).rejects.toThrow("HTTP 403");

    const token = await tokenFor();
    const first = await openTerminal(token, origin);
    first.socket.close();
    await first.closed;
    await expect(openTerminal(token, origin)).rejects.toThrow("HTTP 401");
    await expect(openTerminal(randomBytes(32).toString("base64url"), origin)).rejects.toThrow("HTTP 401");
  });

  it("tells a member's terminal why its login was refused, with a close code of its own", async () => {
    const refused = await openTerminal(await tokenFor(undefined, "wrong-password"), origin);
    const closing = await new Promise<{ code: number; reason: string }>((resolve) =>
      refused.socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(closing.code).toBe(4401);
    expect(closing.reason).not.toBe("");
    expect(refused.output()).toBe("");
  });

  it("binds the token to its user: one removed from the namespace cannot use it", async () => {
    const member = await seedMember(namespace, "operator");
    const token = await tokenFor(member.tenantToken);
    const removed = await call("DELETE", `/api/namespaces/${namespace.tenantId}/members/${member.id}`, {
      token: namespace.owner.tenantToken,
    });
    expect(removed.status).toBe(200);
    await expect(openTerminal(token, origin)).rejects.toThrow("HTTP 401");
  });

  it("keeps the role check for a console user's token", async () => {
    const observer = await seedMember(namespace, "observer");
    const response = await call("POST", "/ws/ssh", {
      token: observer.tenantToken,
      body: { device: deviceUid, username: account.name, password: account.password },
    });
    expect(response.status).toBe(403);
  });

  describe("as ShellHub's UI uses it", () => {
    /** `POST /ws/ssh` without a user token: the device login is the authentication. */
    const anonymousToken = async (body: Record<string, string>, username = account.name) => {
      const response = await call("POST", "/ws/ssh", { body: { device: deviceUid, username, ...body } });
      expect(response.status, response.text).toBe(200);
      return response.body.token as string;
    };
    // The UI offers no subprotocol.
    const openAsShellHub = (token: string) => openTerminal(token, origin, { cols: 80, rows: 24 }, undefined, []);
    const typed = (text: string) => JSON.stringify({ kind: 1, data: [...Buffer.from(text)] });
    const owner = () => ({ token: namespace.owner.tenantToken });
    /** Adds the key to the namespace; the fingerprint the API gives is the one the UI computes. */
    const addKey = async (key: ReturnType<typeof browserSigningKey>, hostname: string, username: string) => {
      const response = await call("POST", "/api/sshkeys/public-keys", {
        ...owner(),
        body: { name: `key-${randomBytes(3).toString("hex")}`, data: key.data, filter: { hostname }, username },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.fingerprint).toBe(key.fingerprint);
    };

    it("takes a token without credentials, its JSON input and resizes, and answers in text messages", async () => {
      const terminal = await openAsShellHub(await anonymousToken({ password: account.password }));
      expect(terminal.socket.protocol).toBe("");
      const marker = `ui-${randomBytes(4).toString("hex")}`;
      terminal.socket.send(typed(`echo ${marker}; stty size\n`));
      await waitFor("the command's output", () => terminal.output().includes("24 80"));
      terminal.socket.send(JSON.stringify({ kind: 2, data: { cols: 132, rows: 50 } }));
      // Later UIs send the typed text as a string.
      terminal.socket.send(JSON.stringify({ kind: 1, data: "stty size\n" }));
      await waitFor("the resized terminal", () => terminal.output().includes("50 132"));
      terminal.socket.send(typed("exit\n"));
      await terminal.closed;
      expect(terminal.output()).toContain(marker);
      expect(terminal.received).toMatchObject({ binary: 0, text: expect.any(Number) });
      expect(terminal.received.text).toBeGreaterThan(0);
    });

    it("logs in with a key's fingerprint and its signature of the user name, RSA or ed25519", async () => {
      for (const type of ["rsa", "ed25519"] as const) {
        const key = browserSigningKey(type);
        await addKey(key, ".*", `^${account.name}$`);
        const token = await anonymousToken({ fingerprint: key.fingerprint, signature: key.signUserName(account.name) });
        const terminal = await openAsShellHub(token);
        terminal.socket.send(typed("echo key-$((6 * 7)); exit\n"));
        await terminal.closed;
        expect(terminal.output(), type).toContain("key-42");
      }
    });

    it("refuses a signature of another name, an unknown fingerprint, and a key whose filter does not admit the device", async () => {
      // Each case logs in as a local user of its own: every refusal counts toward that user's lockout.
      const admitted = browserSigningKey("ed25519");
      await addKey(admitted, ".*", ".*");
      const unknown = browserSigningKey("ed25519");
      const elsewhere = browserSigningKey("rsa");
      await addKey(elsewhere, "^some-other-device$", ".*");
      const cases = [
        { user: "signer", proof: { fingerprint: admitted.fingerprint, signature: admitted.signUserName("root") } },
        { user: "stranger", proof: { fingerprint: unknown.fingerprint, signature: unknown.signUserName("stranger") } },
        {
          user: "filtered",
          proof: { fingerprint: elsewhere.fingerprint, signature: elsewhere.signUserName("filtered") },
        },
      ];
      for (const { user, proof } of cases) {
        await expect(openAsShellHub(await anonymousToken(proof, user)), user).rejects.toThrow("HTTP 401");
      }
    });

    it("refuses a login a firewall rule denies, and takes it once the rule is gone", async () => {
      const rule = await seedDenyingRule(namespace, `^${account.name}$`);
      try {
        const denied = await anonymousToken({ password: account.password });
        await expect(openAsShellHub(denied)).rejects.toThrow("HTTP 401");
      } finally {
        await rule.remove();
      }
      const terminal = await openAsShellHub(await anonymousToken({ password: account.password }));
      terminal.socket.close();
      await terminal.closed;
    });

    it("counts a wrong password toward the gateway's lockout of the (source, account on the device) pair", async () => {
      const locked = createAccount();
      try {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const wrong = await anonymousToken({ password: "wrong" }, locked.name);
          await expect(openAsShellHub(wrong)).rejects.toThrow("HTTP 401");
        }
        // The right password is refused now, here and at the gateway.
        const right = await anonymousToken({ password: locked.password }, locked.name);
        await expect(openAsShellHub(right)).rejects.toThrow("HTTP 401");
        const viaGateway = await sshWithPassword(await sshPort(), locked.password, [
          `${locked.name}@${deviceUid}@127.0.0.1`,
          "true",
        ]);
        expect(viaGateway.code).not.toBe(0);
      } finally {
        locked.remove();
      }
    });
  });
});
