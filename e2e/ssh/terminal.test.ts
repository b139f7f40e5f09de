import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call } from "@/testing/client";
import { type SeededNamespace, seedMember } from "@/testing/seeds/namespaces";
import { isRoot, openTerminal, startDevice, type TestDevice } from "@/testing/ssh";
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
    await expect(openTerminal(await tokenFor(undefined, "wrong-password"), origin)).rejects.toThrow("HTTP 401");
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
});
