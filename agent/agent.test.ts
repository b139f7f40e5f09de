import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import ssh2 from "ssh2";
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { seedNamespace } from "@/testing/seeds/namespaces";
import { startServer } from "@/testing/server";
import { ed25519KeyPair } from "@/testing/ssh-keys";
import { waitFor } from "@/testing/wait";
import { Agent } from "./agent";
import { parseOsRelease, readPrimaryMac } from "./os-info";
import type { TunnelPhase } from "./tunnel";

const running: Agent[] = [];
const directories: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.stop()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A namespace on the server at `baseUrl`, and its owner's token for it. */
async function namespaceOn(baseUrl: string) {
  const { tenantId, owner } = await seedNamespace(undefined, { baseUrl });
  return { tenantId, token: owner.tenantToken };
}

function startAgent(serverUrl: string, tenantId: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-agent-"));
  directories.push(dataDir);
  const hostname = `agent-${randomBytes(4).toString("hex")}`;
  const agent = new Agent({ serverUrl, tenantId, hostname, dataDir, heartbeatMs: 500 });
  running.push(agent);
  const phases: TunnelPhase[] = [];
  agent.tunnel.onPhase((phase) => phases.push(phase));
  void agent.start();
  return { agent, hostname, dataDir, phases };
}

async function deviceNamed(baseUrl: string, token: string, hostname: string) {
  const listed = await call("GET", "/api/devices?per_page=100&status=pending", { baseUrl, token });
  const accepted = await call("GET", "/api/devices?per_page=100&status=accepted", { baseUrl, token });
  return [...listed.body, ...accepted.body].find((device: { name: string }) => device.name === hostname);
}

describe("agent against the server", () => {
  it("registers with the OS description, holds its tunnel while pending, keeps it when accepted and drops it when rejected", async () => {
    const baseUrl = inject("baseUrl");
    const { tenantId, token } = await namespaceOn(baseUrl);
    const { agent, hostname, dataDir, phases } = startAgent(baseUrl, tenantId);

    let device: { uid: string; info: Record<string, string>; identity: { mac: string }; status: string } | undefined;
    await waitFor("the device to register", async () => {
      device = await deviceNamed(baseUrl, token, hostname);
      return device !== undefined;
    });
    const release = parseOsRelease(readFileSync("/etc/os-release", "utf8"));
    expect(device?.status).toBe("pending");
    expect(device?.info).toMatchObject({ id: release.ID, pretty_name: release.PRETTY_NAME });
    expect(device?.identity.mac).toBe(readPrimaryMac());

    // Pending: the server holds the tunnel, which carries no session until the device is accepted.
    await waitFor("the waiting tunnel", () => agent.tunnel.phase === "connected");
    expect(existsSync(path.join(dataDir, "server_host_key.pub"))).toBe(true);

    // The accept keeps that tunnel: nothing to reconnect, so the device is reachable at once.
    await call("PATCH", `/api/devices/${device?.uid}/accept`, { baseUrl, token });
    expect(agent.tunnel.phase).toBe("connected");
    expect(phases.filter((phase) => phase === "connected")).toHaveLength(1);

    // While the tunnel is up it is the heartbeat: four beats' time passes without a call.
    let calls = 0;
    const authenticate = agent.registration.authenticate.bind(agent.registration);
    agent.registration.authenticate = () => {
      calls += 1;
      return authenticate();
    };
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(calls).toBe(0);

    const rejected = await call("PATCH", `/api/devices/${device?.uid}/reject`, { baseUrl, token });
    expect(rejected.status).toBe(200);
    await waitFor("the tunnel to go", () => agent.tunnel.phase !== "connected");
    // Without a tunnel the agent calls again.
    await waitFor("a heartbeat", () => calls > 0);
  });

  it("serves a gateway session in the tunnel and lists its uid among its sessions while it lasts", async () => {
    const baseUrl = inject("baseUrl");
    const { tenantId, token } = await namespaceOn(baseUrl);
    const { agent, hostname } = startAgent(baseUrl, tenantId);
    await waitFor("the device to register", async () => (await deviceNamed(baseUrl, token, hostname)) !== undefined);
    const device = await deviceNamed(baseUrl, token, hostname);
    await call("PATCH", `/api/devices/${device.uid}/accept`, { baseUrl, token });
    await waitFor("the tunnel", () => agent.tunnel.phase === "connected");

    const key = ed25519KeyPair();
    const added = await call("POST", "/api/sshkeys/public-keys", {
      baseUrl,
      token,
      body: {
        data: Buffer.from(key.public).toString("base64"),
        name: uniqueName("k"),
        filter: { hostname: ".*" },
        username: ".*",
      },
    });
    expect(added.status).toBe(200);
    const info = await call("GET", "/info", { baseUrl });
    const namespace = (await call("GET", `/api/namespaces/${tenantId}`, { baseUrl, token })).body.name as string;
    const client = new ssh2.Client();
    await new Promise<void>((resolve, reject) => {
      client.once("ready", () => resolve());
      client.once("error", reject);
      client.connect({
        host: "127.0.0.1",
        port: Number(String(info.body.endpoints.ssh).split(":").pop()),
        username: `${userInfo().username}@${namespace}.${hostname}`,
        privateKey: key.private,
      });
    });
    try {
      const output = await new Promise<string>((resolve, reject) =>
        client.exec("echo served; sleep 2", (error, channel) => {
          if (error) return reject(error);
          channel.once("data", (chunk: Buffer) => resolve(chunk.toString()));
        }),
      );
      expect(output).toBe("served\n");
      const [served] = agent.tunnel.sessions();
      const sessions = await call("GET", "/api/sessions?per_page=100", { baseUrl, token });
      expect(sessions.body.map((session: { uid: string }) => session.uid)).toContain(served);
    } finally {
      client.end();
    }
    await waitFor("the session to end on the device", () => agent.tunnel.sessions().length === 0);
  });

  it("reconnects when the server comes back", async () => {
    const server = await startServer();
    const { tenantId, token } = await namespaceOn(server.url);
    const { agent, hostname } = startAgent(server.url, tenantId);
    try {
      await waitFor(
        "the device to register",
        async () => (await deviceNamed(server.url, token, hostname)) !== undefined,
      );
      const device = await deviceNamed(server.url, token, hostname);
      await call("PATCH", `/api/devices/${device.uid}/accept`, { baseUrl: server.url, token });
      await waitFor("the tunnel", () => agent.tunnel.phase === "connected");

      await server.stop();
      await waitFor("the tunnel to go", () => agent.tunnel.phase !== "connected");
      const again = await startServer({ PORT: String(server.port), DATA_DIR: server.dataDir });
      try {
        await waitFor("the tunnel again", () => agent.tunnel.phase === "connected", 90);
      } finally {
        await agent.stop();
        await again.stop();
      }
    } finally {
      await server.stop();
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  });
});
