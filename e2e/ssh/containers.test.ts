import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { dockerCli, runTestContainer } from "@/testing/docker-engine";
import { seedDenyingRule } from "@/testing/seeds/firewall-rules";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import {
  clientOptions,
  keyOnly,
  keyPair,
  openTerminal,
  run,
  scratchDir,
  sshPort,
  sshTo,
  sshWithPassword,
} from "@/testing/ssh";
import { browserSigningKey } from "@/testing/ssh-keys";
import { waitFor } from "@/testing/wait";

/**
 * `ssh USER@NAMESPACE.CONTAINER@HOST` into a container of the run's Docker engine, through the
 * gateway and the engine's exec API, with OpenSSH's client.
 */

const engine = inject("dockerEngine");
const docker = dockerCli(engine.socket);

type Session = {
  uid: string;
  username: string;
  authenticated: boolean;
  type: string;
  device_uid: string;
  reason: string;
  active: boolean;
};

let namespace: SeededNamespace;
let port = 0;
let scratch = "";
let key: { file: string; line: string };
let containerId = "";
let deviceUid = "";
let target = "";
const owner = () => ({ token: namespace.owner.tenantToken });
const ssh = (args: string[], input = "") => sshTo(port, [...keyOnly(key.file), ...args], input);

async function sessionsOf(username: string): Promise<Session[]> {
  const response = await call("GET", "/api/sessions?per_page=100", owner());
  return (response.body as Session[]).filter((session) => session.username === username);
}

beforeAll(async () => {
  port = await sshPort();
  scratch = scratchDir();
  namespace = await seedNamespace();
  key = keyPair(scratch);
  const added = await call("POST", "/api/sshkeys/public-keys", {
    ...owner(),
    body: {
      data: Buffer.from(key.line).toString("base64"),
      name: "container-key",
      filter: { hostname: ".*" },
      username: "^root$",
    },
  });
  expect(added.status, added.text).toBe(200);
  const name = uniqueName("box");
  containerId = await runTestContainer(docker, name);
  const connector = await call("POST", "/api/connector", {
    ...owner(),
    body: { address: "127.0.0.1", port: engine.port },
  });
  expect(connector.status, connector.text).toBe(200);
  await waitFor("the container to become a device", async () => {
    const listed = await call("GET", "/api/containers", owner());
    deviceUid = listed.body.find((device: { name: string }) => device.name === name)?.uid ?? "";
    return deviceUid !== "";
  });
  expect((await call("PATCH", `/api/devices/${deviceUid}/accept`, owner())).status).toBe(200);
  target = `root@${namespace.name}.${name}@127.0.0.1`;
});

afterAll(async () => {
  if (containerId) await docker("rm", "-f", containerId);
  rmSync(scratch, { recursive: true, force: true });
});

describe("ssh into a container", () => {
  it("runs a command with its exit status, and closes its input at the end of the client's", async () => {
    const result = await ssh([target, "echo in-$(hostname | cut -c1-4); echo oops >&2; exit 3"]);
    expect(result).toMatchObject({ code: 3, stdout: `in-${containerId.slice(0, 4)}\n`, stderr: "oops\n" });
    const echoed = await ssh([target, "cat; echo done"], "line one\nline two\n");
    expect(echoed).toMatchObject({ code: 0, stdout: "line one\nline two\ndone\n" });
  });

  it("copies a file in and out with scp, and lists it with sftp (the image's sftp-server)", async () => {
    const original = path.join(scratch, "payload.bin");
    writeFileSync(original, randomBytes(256 * 1024));
    const copy = (args: string[]) => run("scp", ["-P", String(port), ...clientOptions, ...keyOnly(key.file), ...args]);
    expect((await copy([original, `${target}:/tmp/payload.bin`])).code).toBe(0);
    const back = path.join(scratch, "payload.back");
    expect((await copy([`${target}:/tmp/payload.bin`, back])).code).toBe(0);
    expect(readFileSync(back).equals(readFileSync(original))).toBe(true);
    const listing = await run(
      "sftp",
      ["-P", String(port), ...clientOptions, ...keyOnly(key.file), "-b", "-", target],
      "ls -l /tmp\n",
    );
    expect(listing.code).toBe(0);
    expect(listing.stdout).toMatch(/262144 .*payload\.bin/);
  });

  it("opens a shell on a terminal, and records the session", async () => {
    const settings = { session_record: true };
    expect(
      (await call("PUT", `/api/namespaces/${namespace.tenantId}`, { ...owner(), body: { settings } })).status,
    ).toBe(200);
    const marker = `typed-${randomBytes(4).toString("hex")}`;
    const result = await ssh(["-tt", target], `tty; echo ${marker}; exit 4\n`);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/\/dev\/pts\/\d+/);
    expect(result.stdout).toContain(marker);
    const [session] = (await sessionsOf("root")).filter((row) => row.type === "shell");
    expect(session).toMatchObject({ authenticated: true, device_uid: deviceUid });
    await waitFor("the recording", async () => {
      const frames: { message: string }[] = (await call("GET", `/api/sessions/${session?.uid}/play`, owner())).body;
      return frames
        .map((frame) => frame.message)
        .join("")
        .includes(marker);
    });
  });

  it("opens the browser terminal with a key's signature, sized and resized", async () => {
    const signing = browserSigningKey("ed25519");
    const added = await call("POST", "/api/sshkeys/public-keys", {
      ...owner(),
      body: { name: "browser-key", data: signing.data, filter: { hostname: ".*" }, username: "^root$" },
    });
    expect(added.status, added.text).toBe(200);
    const ticket = await call("POST", "/ws/ssh", {
      body: {
        device: deviceUid,
        username: "root",
        fingerprint: signing.fingerprint,
        signature: signing.signUserName("root"),
      },
    });
    expect(ticket.status, ticket.text).toBe(200);
    const origin = `http://localhost:${new URL(inject("baseUrl")).port}`;
    const terminal = await openTerminal(ticket.body.token, origin, { cols: 100, rows: 30 });
    terminal.socket.send(Buffer.from("stty size\n"));
    await waitFor("the terminal's size", () => terminal.output().includes("30 100"));
    terminal.socket.send(JSON.stringify({ type: "resize", cols: 120, rows: 40 }));
    // The engine takes a resize through its API, beside the input stream: a command typed at once
    // can run before the new size is set, so the size is asked again until it shows.
    await waitFor("the resized terminal", () => {
      terminal.socket.send(Buffer.from("stty size\n"));
      return terminal.output().includes("40 120");
    });
    terminal.socket.send(Buffer.from("exit\n"));
    await terminal.closed;
  });

  it("refuses a password, with the reason in the session row", async () => {
    const result = await sshWithPassword(port, "any-password", [
      "-o",
      "NumberOfPasswordPrompts=1",
      "-o",
      "PubkeyAuthentication=no",
      target,
      "true",
    ]);
    expect(result.code).not.toBe(0);
    // The client may leave before the gateway has seen its socket close: the row gets its reason
    // when the session ends.
    let refused: Session | undefined;
    await waitFor("the refused session to end", async () => {
      const response = await call("GET", "/api/sessions?per_page=100", owner());
      refused = (response.body as Session[]).find((row) => !row.authenticated && row.device_uid === deviceUid);
      return refused !== undefined && !refused.active;
    });
    expect(refused?.reason).toBe("a container takes public keys only, not passwords");
  });

  it("applies the firewall, and refuses a container that stopped", async () => {
    const rule = await seedDenyingRule(namespace, "root");
    const denied = await ssh([target, "true"]);
    expect(denied.code).toBe(255);
    await rule.remove();
    expect((await ssh([target, "true"])).code).toBe(0);

    await docker("stop", "-t", "0", containerId);
    await waitFor("the container to go offline", async () => {
      return (await call("GET", `/api/devices/${deviceUid}`, owner())).body.online === false;
    });
    expect((await ssh([target, "true"])).code).toBe(255);
    await docker("start", containerId);
  });
});
