import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startAgent } from "@/testing/agents";
import { call } from "@/testing/client";
import { type EventStream, openEventStream, type ReceivedEvent } from "@/testing/events";
import { type InProcessAgent, startAgentInProcess } from "@/testing/in-process-agents";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { createAccount, isRoot, keyOnly, keyPair, scratchDir, sshPort, sshTo } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

/**
 * Live status with real agents and OpenSSH through the gateway: a pending device's tunnel waits,
 * so an accepted device is reachable at once (one device, and fifty accepted together); a
 * stopped agent's device goes offline at once; the event stream says so (docs/live-status.md).
 */

const about = (uid: string, type: string) => (event: ReceivedEvent) => event.data.uid === uid && event.event === type;

describe.skipIf(!isRoot)("live status with real agents (needs root: test accounts, agents as root)", () => {
  let account: ReturnType<typeof createAccount>;
  let scratch: string;
  let key: { file: string; line: string };
  let port: number;
  const streams: EventStream[] = [];

  /** A namespace whose public key lets `key` log in as the test account on any of its devices. */
  async function namespaceWithKey() {
    const namespace = await seedNamespace();
    const added = await call("POST", "/api/sshkeys/public-keys", {
      token: namespace.owner.tenantToken,
      body: {
        data: Buffer.from(key.line).toString("base64"),
        name: "live",
        filter: { hostname: ".*" },
        username: `^${account.name}$`,
      },
    });
    expect(added.status).toBe(200);
    return namespace;
  }

  const login = (namespace: SeededNamespace, hostname: string) =>
    sshTo(port, [...keyOnly(key.file), `${account.name}@${namespace.name}.${hostname}@127.0.0.1`, "echo reached"]);

  async function pendingUids(namespace: SeededNamespace) {
    const listed = await call("GET", "/api/devices?status=pending&per_page=100", {
      token: namespace.owner.tenantToken,
    });
    return listed.body as { uid: string; name: string }[];
  }

  beforeAll(async () => {
    account = createAccount();
    scratch = scratchDir();
    key = keyPair(scratch);
    port = await sshPort();
  });

  afterAll(() => {
    for (const stream of streams) stream.close();
    account?.remove();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a device is reachable as soon as it is accepted, its sessions and its agent's stop are streamed", async () => {
    const namespace = await namespaceWithKey();
    const owner = { token: namespace.owner.tenantToken };
    const stream = await openEventStream(owner);
    streams.push(stream);
    const agent = startAgent(inject("baseUrl"), namespace.tenantId);
    try {
      const registered = await stream.next(
        (event) => event.event === "device.registered" && event.data.patch.name === agent.hostname,
        60,
      );
      const uid = registered.data.uid;
      // Pending: the tunnel is up, and carries no session.
      await agent.tunnelUp();
      expect((await login(namespace, agent.hostname)).code).not.toBe(0);

      const accepted = await call("PATCH", `/api/devices/${uid}/accept`, owner);
      expect(accepted.status).toBe(200);
      const acceptedAt = Date.now();
      const reached = await login(namespace, agent.hostname);
      const loginMs = Date.now() - acceptedAt;
      expect(reached).toMatchObject({ code: 0, stdout: "reached\n" });
      expect(loginMs).toBeLessThan(2_000);
      expect((await stream.next(about(uid, "device.status"))).data.patch).toMatchObject({ status: "accepted" });

      const started = await stream.next(
        (event) => event.event === "session.started" && event.data.patch.device_uid === uid,
      );
      expect(started.data.patch).toMatchObject({ username: account.name, active: true });
      await stream.next(about(started.data.uid, "session.ended"));

      // The agent stops: its tunnel closes, and the device is offline at once, not after the heartbeat timeout.
      const stoppedAt = Date.now();
      await agent.stop();
      const offline = await stream.next(about(uid, "device.offline"), 10);
      expect(offline.receivedAt - stoppedAt).toBeLessThan(2_000);
      expect((await call("GET", `/api/devices/${uid}`, owner)).body.online).toBe(false);
    } finally {
      await agent.stop();
    }
  });

  it("fifty devices accepted together are all reachable at once", async () => {
    const namespace = await namespaceWithKey();
    const owner = { token: namespace.owner.tenantToken };
    const agents: InProcessAgent[] = [];
    // Fifty agents in this process: their log lines would bury the test's output.
    const logLevel = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = "warn";
    try {
      for (let started = 0; started < 50; started++) {
        agents.push(await startAgentInProcess(inject("baseUrl"), namespace.tenantId));
      }
      await waitFor(
        "fifty waiting tunnels",
        () => agents.every((running) => running.agent.tunnel.phase === "connected"),
        120,
      );
      const pending = await pendingUids(namespace);
      expect(pending).toHaveLength(50);
      // Reachable at once means on the tunnel already up: no agent connects again.
      let reconnects = 0;
      for (const running of agents) {
        running.agent.tunnel.onPhase((phase) => {
          if (phase === "connecting") reconnects += 1;
        });
      }

      const accepts = await Promise.all(
        pending.map((device) => call("PATCH", `/api/devices/${device.uid}/accept`, owner)),
      );
      expect(accepts.map((answer) => answer.status)).toEqual(pending.map(() => 200));
      // Each device's first login after the accept works; ten OpenSSH clients at a time.
      const failures: string[] = [];
      for (let index = 0; index < agents.length; index += 10) {
        await Promise.all(
          agents.slice(index, index + 10).map(async (running) => {
            const result = await login(namespace, running.hostname);
            if (result.code !== 0 || result.stdout !== "reached\n") {
              failures.push(`${running.hostname}: ${result.code} ${result.stderr}`);
            }
          }),
        );
      }
      expect(failures).toEqual([]);
      expect(reconnects).toBe(0);
    } finally {
      await Promise.all(agents.map((running) => running.stop()));
      if (logLevel === undefined) Reflect.deleteProperty(process.env, "LOG_LEVEL");
      else process.env.LOG_LEVEL = logLevel;
    }
  });
});
