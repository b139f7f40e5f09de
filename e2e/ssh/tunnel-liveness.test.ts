import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptAgentDevice, spawnAgent } from "@/testing/agents";
import { call } from "@/testing/client";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { type SeededNamespace, seedNamespace } from "@/testing/seeds/namespaces";
import { createAccount, isRoot, sshPort, sshWithPassword } from "@/testing/ssh";
import { waitFor } from "@/testing/wait";

/**
 * The tunnel is the device's heartbeat: with DEVICE_OFFLINE_SECONDS at 10, a real agent that
 * sends no REST heartbeat after registering stays online while its tunnel is up, and the session
 * it serves is seen too; a frozen agent (SIGSTOP: its TCP connection stays open) goes offline once
 * the tunnel's keepalive gives up, and comes back when it runs again.
 */

type Device = { online: boolean; last_seen: string };

describe.skipIf(!isRoot)(
  "the tunnel carries the device's liveness (needs root: a test account, the agent as root)",
  () => {
    let server: OwnServer;
    let namespace: SeededNamespace;
    let port: number;
    const cleanups: (() => unknown)[] = [];

    beforeAll(async () => {
      server = await startOwnServer({ DEVICE_OFFLINE_SECONDS: "10" });
      namespace = await seedNamespace(undefined, { baseUrl: server.url });
      port = await sshPort(server.url);
    });

    afterAll(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await server.stop();
    });

    const options = () => ({ baseUrl: server.url, token: namespace.owner.tenantToken });

    async function device(uid: string): Promise<Device> {
      const response = await call("GET", `/api/devices/${uid}`, options());
      expect(response.status).toBe(200);
      return response.body as Device;
    }

    /** The real agent, heartbeating only once an hour: whatever keeps its device online is the tunnel. */
    async function startQuietAgent() {
      const hostname = `quiet-${randomBytes(4).toString("hex")}`;
      const dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-"));
      const agent = spawnAgent(
        { server: server.url, tenantId: namespace.tenantId, hostname, dataDir },
        { HEARTBEAT_INTERVAL: "3600" },
      );
      const exited = new Promise((resolve) => agent.child.once("close", resolve));
      cleanups.push(async () => {
        agent.child.kill("SIGCONT");
        agent.child.kill("SIGTERM");
        await exited;
        rmSync(dataDir, { recursive: true, force: true });
      });
      const uid = await acceptAgentDevice(hostname, options());
      const tunnels = () => agent.output().split('"message":"tunnel connected"').length - 1;
      await waitFor(
        () => `the tunnel:\n${agent.output()}`,
        () => tunnels() >= 1,
      );
      return { uid, hostname, agent, tunnels };
    }

    it("keeps a device with a tunnel online past DEVICE_OFFLINE_SECONDS without heartbeats, and its session seen", async () => {
      const { uid, hostname } = await startQuietAgent();
      const account = createAccount();
      cleanups.push(() => account.remove());
      const target = `${account.name}@${namespace.name}.${hostname}@127.0.0.1`;
      const login = sshWithPassword(port, account.password, [target, "sleep 14; echo done"]);

      let session: { uid: string; started_at: string; last_seen: string } | undefined;
      await waitFor("the session", async () => {
        const listed = await call("GET", `/api/sessions?device_uid=${uid}&active=true`, options());
        session = listed.body[0];
        return session !== undefined;
      });
      // Twice the offline delay with no heartbeat from the agent.
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      const seen = await device(uid);
      expect(seen.online).toBe(true);
      expect(Date.now() - Date.parse(seen.last_seen)).toBeLessThan(8_000);
      const live = await call("GET", `/api/sessions/${session?.uid}`, options());
      expect(Date.parse(live.body.last_seen)).toBeGreaterThan(Date.parse(session?.started_at ?? "") + 2_000);

      const result = await login;
      expect(result.stdout).toContain("done");
      expect(result.code).toBe(0);
    });

    it("takes a frozen agent's device offline once its tunnel stops answering, and back online when it runs again", async () => {
      const { uid, agent, tunnels } = await startQuietAgent();
      expect((await device(uid)).online).toBe(true);

      agent.child.kill("SIGSTOP");
      await waitFor("the frozen agent's device to go offline", async () => !(await device(uid)).online, 60);
      const before = tunnels();
      agent.child.kill("SIGCONT");
      await waitFor(
        () => `a new tunnel:\n${agent.output()}`,
        () => tunnels() > before,
        60,
      );
      await waitFor("the device online again", async () => (await device(uid)).online);
    });
  },
);
