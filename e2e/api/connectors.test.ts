import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, uniqueName } from "@/testing/client";
import { dockerCli, runTestContainer } from "@/testing/docker-engine";
import { type OwnServer, startOwnServer } from "@/testing/own-server";
import { type SeededNamespace, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { waitFor } from "@/testing/wait";

/**
 * Connectors over real HTTP, against the run's Docker engine on the loopback, which the run's
 * server may dial (testing/global-setup.ts). The engine-level behaviour (status, back-off, TLS
 * failures, the lease) is in lib/services/connectors.test.ts.
 */

const engine = inject("dockerEngine");
const docker = dockerCli(engine.socket);

let namespace: SeededNamespace;
let token = "";
beforeAll(async () => {
  namespace = await seedNamespace();
  token = namespace.owner.tenantToken;
});

describe("connectors", () => {
  it("are created, listed with the enable filter and pages, read, changed and deleted", async () => {
    const plain = await call("POST", "/api/connector", {
      token,
      body: { enable: false, address: "127.0.0.1", port: engine.port },
    });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body).toMatchObject({
      tenant_id: namespace.tenantId,
      enable: false,
      address: "127.0.0.1",
      port: engine.port,
      secure: false,
      tls: null,
      status: { State: "disconnected", Message: "disabled" },
    });
    const secure = await call("POST", "/api/connector", {
      token,
      body: { enable: false, address: "LocalHost", port: engine.tlsPort, secure: true, tls: engine.client },
    });
    expect(secure.status, secure.text).toBe(200);
    expect(secure.body).toMatchObject({ address: "localhost", secure: true });
    expect(secure.body.tls).toEqual({ ca: engine.client.ca, cert: engine.client.cert });
    expect(secure.text).not.toContain("PRIVATE KEY");

    const first = await call("GET", "/api/connector?page=1&per_page=1", { token });
    expect(first.headers.get("x-total-count")).toBe("2");
    expect(first.body.map((connector: { uid: string }) => connector.uid)).toEqual([plain.body.uid]);
    const second = await call("GET", "/api/connector?page=2&per_page=1", { token });
    expect(second.body.map((connector: { uid: string }) => connector.uid)).toEqual([secure.body.uid]);

    const enabled = await call("PATCH", `/api/connector/${plain.body.uid}`, { token, body: { enable: true } });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.enable).toBe(true);
    const onlyEnabled = await call("GET", "/api/connector?enable=true", { token });
    expect(onlyEnabled.body.map((connector: { uid: string }) => connector.uid)).toEqual([plain.body.uid]);
    const onlyDisabled = await call("GET", "/api/connector?enable=false", { token });
    expect(onlyDisabled.body.map((connector: { uid: string }) => connector.uid)).toEqual([secure.body.uid]);

    const got = await call("GET", `/api/connector/${secure.body.uid}`, { token });
    expect(got.body).toEqual(secure.body);

    // Both ways of reaching the engine answer its own info, and only the SPEC.md fields.
    const expected = JSON.parse(await docker("info", "--format", "{{json .}}"));
    for (const uid of [plain.body.uid, secure.body.uid]) {
      const info = await call("GET", `/api/connector/${uid}/info`, { token });
      expect(info.status, info.text).toBe(200);
      expect(info.body).toMatchObject({ ID: expected.ID, Driver: "vfs" });
      expect(Object.keys(info.body)).not.toContain("ServerVersion");
    }

    const other = await seedNamespace();
    for (const [method, path] of [
      ["GET", `/api/connector/${plain.body.uid}`],
      ["GET", `/api/connector/${plain.body.uid}/info`],
      ["PATCH", `/api/connector/${plain.body.uid}`],
      ["DELETE", `/api/connector/${plain.body.uid}`],
    ] as const) {
      const refused = await call(method, path, {
        token: other.owner.tenantToken,
        body: method === "PATCH" ? {} : undefined,
      });
      expect(refused.status, `${method} ${path}`).toBe(404);
    }

    for (const uid of [plain.body.uid, secure.body.uid]) {
      expect((await call("DELETE", `/api/connector/${uid}`, { token })).status).toBe(200);
    }
    expect((await call("GET", `/api/connector/${plain.body.uid}`, { token })).status).toBe(404);
  });

  it("let an observer read them and only an administrator change them", async () => {
    const observer = await seedMember(namespace, "observer");
    const body = { enable: false, address: "127.0.0.1", port: engine.port };
    expect((await call("POST", "/api/connector", { token: observer.tenantToken, body })).status).toBe(403);
    expect((await call("GET", "/api/connector", { token: observer.tenantToken })).status).toBe(200);
  });
});

describe("containers", () => {
  it("appear as devices of the namespace while they run, and go with their connector", async () => {
    const mine = await seedNamespace();
    const owner = mine.owner.tenantToken;
    const name = uniqueName("box");
    const id = await runTestContainer(docker, name);
    try {
      const created = await call("POST", "/api/connector", {
        token: owner,
        body: { address: "127.0.0.1", port: engine.port },
      });
      expect(created.status, created.text).toBe(200);
      const containerOf = async () => {
        const listed = await call("GET", "/api/containers?per_page=100", { token: owner });
        return listed.body.find((device: { name: string }) => device.name === name);
      };
      await waitFor(`container ${name} to be listed`, async () => (await containerOf()) !== undefined);
      const container = await containerOf();
      expect(container).toMatchObject({
        status: "pending",
        online: true,
        info: { pretty_name: "busybox-root:test", platform: "docker" },
        container: { connector_uid: created.body.uid, id, image: "busybox-root:test" },
      });
      const connector = await call("GET", `/api/connector/${created.body.uid}`, { token: owner });
      expect(connector.body.status).toEqual({ State: "connected", Message: "" });

      // Accepted like any device.
      const accepted = await call("PATCH", `/api/devices/${container.uid}/accept`, { token: owner });
      expect(accepted.status, accepted.text).toBe(200);

      await docker("stop", "-t", "0", id);
      await waitFor("the stopped container to go offline", async () => (await containerOf())?.online === false);
      await docker("start", id);
      await waitFor("the started container to come online", async () => (await containerOf())?.online === true);

      expect((await call("DELETE", `/api/connector/${created.body.uid}`, { token: owner })).status).toBe(200);
      expect(await containerOf()).toBeUndefined();
      expect((await call("GET", `/api/devices/${container.uid}`, { token: owner })).status).toBe(404);
    } finally {
      await docker("rm", "-f", id);
    }
  });
});

describe("a server that may not dial the loopback", () => {
  // The canary: the server must never connect to it.
  let canary: net.Server;
  let connections = 0;
  let server: OwnServer;
  beforeAll(async () => {
    canary = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
    server = await startOwnServer({ CONNECTOR_SYNC_SECONDS: "1" });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => canary.close(resolve));
  });

  it("refuses to dial it, in the status and in the info, and never connects", async () => {
    const mine = await seedNamespace(undefined, { baseUrl: server.url });
    const port = (canary.address() as net.AddressInfo).port;
    const options = { token: mine.owner.tenantToken, baseUrl: server.url };
    for (const address of ["127.0.0.1", "localhost"]) {
      const created = await call("POST", "/api/connector", { ...options, body: { address, port } });
      expect(created.status, created.text).toBe(200);
      const uid = created.body.uid;
      await waitFor(`the ${address} connector's status`, async () => {
        const got = await call("GET", `/api/connector/${uid}`, options);
        return got.body.status.State === "error";
      });
      const got = await call("GET", `/api/connector/${uid}`, options);
      expect(got.body.status.Message).toMatch(/loopback address, not allowed \(CONNECTOR_ALLOWED_CIDRS\)/);
      const info = await call("GET", `/api/connector/${uid}/info`, options);
      expect(info.status).toBe(502);
      expect(info.body.message).toMatch(/loopback/);
    }
    expect(connections).toBe(0);
  });
});
