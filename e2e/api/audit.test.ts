import { describe, expect, inject, it } from "vitest";
import { cli, type Data, expectError, expectOk } from "@/testing/cli";
import { call, randomUid, uniqueName } from "@/testing/client";
import { internalHeaders } from "@/testing/internal";
import { seedDevice } from "@/testing/seeds/devices";
import { type SeededNamespace, seedMember, seedNamespace } from "@/testing/seeds/namespaces";
import { frame, seedSession, setRecording } from "@/testing/seeds/sessions";

/**
 * The audit trail over HTTP: each change made through the API is a row with its actor, source
 * address, action, target and details, read back with the filters and the JSON-lines export,
 * and the chain proven by the admin CLI (a real process on the test server's data).
 */

const data: Data = { DATA_DIR: inject("dataDir"), DATABASE_URL: inject("databaseUrl") || undefined };

type Entry = {
  id: number;
  time: string;
  actor: { type: string; id: string; name: string };
  source: string;
  action: string;
  target: { type: string; id: string };
  outcome: string;
  details: Record<string, unknown>;
  hash: string;
};

const owner = (namespace: SeededNamespace) => ({ token: namespace.owner.tenantToken });

async function trail(namespace: SeededNamespace, query = "") {
  const response = await call("GET", `/api/audit?per_page=100&${query}`, owner(namespace));
  expect(response.status).toBe(200);
  return { entries: response.body as Entry[], total: Number(response.headers.get("x-total-count")) };
}

const rule = {
  action: "deny",
  active: true,
  priority: 7,
  source_ip: ".*",
  username: "^root$",
  filter: { hostname: ".*" },
};

describe("audit trail", () => {
  it("records each change with its actor, source address, target and details, newest first", async () => {
    const namespace = await seedNamespace();
    const created = await call("POST", "/api/firewall/rules", { ...owner(namespace), body: rule });
    const id = created.body.id as string;
    await call("PUT", `/api/firewall/rules/${id}`, { ...owner(namespace), body: { ...rule, priority: 8 } });
    await call("DELETE", `/api/firewall/rules/${id}`, owner(namespace));
    const { entries, total } = await trail(namespace, "action=firewall_rule.");
    expect(total).toBe(3);
    expect(entries.map((entry) => entry.action)).toEqual([
      "firewall_rule.delete",
      "firewall_rule.update",
      "firewall_rule.create",
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actor: { type: "user", id: namespace.owner.id, name: namespace.owner.username },
        source: "127.0.0.1",
        target: { type: "firewall_rule", id },
        outcome: "success",
      });
      expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(entries[1]?.details).toMatchObject({ priority: 8, username: "^root$" });
  });

  it("names the API key that made a change, and records a refused use with its reason", async () => {
    const namespace = await seedNamespace();
    const admin = await seedMember(namespace, "administrator");
    const createKey = async (role: string) => {
      const name = uniqueName("key");
      const response = await call("POST", "/api/namespaces/api-key", {
        token: admin.tenantToken,
        body: { name, expires_at: -1, role },
      });
      return { name, key: response.body.id as string };
    };
    const writer = await createKey("administrator");
    expect((await call("POST", "/api/firewall/rules", { apiKey: writer.key, body: rule })).status).toBe(200);
    const [change] = (await trail(namespace, "action=firewall_rule.create")).entries;
    expect(change?.actor).toEqual({ type: "api_key", id: writer.name, name: writer.name });

    const reader = await createKey("observer");
    expect((await call("POST", "/api/firewall/rules", { apiKey: reader.key, body: rule })).status).toBe(403);
    const [refused] = (await trail(namespace, "outcome=failure")).entries;
    expect(refused).toMatchObject({
      action: "access.denied",
      actor: { type: "api_key", name: reader.name },
      target: { type: "operation", id: "createFirewallRule" },
      details: { reason: "the observer role may not do this", method: "POST", path: "/api/firewall/rules" },
    });

    await call("DELETE", `/api/namespaces/${namespace.tenantId}/members/${admin.id}`, owner(namespace));
    const members = (await trail(namespace, "action=member.")).entries.map((entry) => [entry.action, entry.target.id]);
    expect(members).toEqual([
      ["member.remove", admin.id],
      ["member.add", admin.id],
    ]);
  });

  it("filters by actor, target and time, and exports the same rows as JSON lines, oldest first", async () => {
    const namespace = await seedNamespace();
    const start = new Date().toISOString();
    await call("PUT", `/api/namespaces/${namespace.tenantId}`, {
      ...owner(namespace),
      body: { name: uniqueName("ns") },
    });
    await call("PUT", `/api/users/security/${namespace.tenantId}`, {
      ...owner(namespace),
      body: { session_record: false },
    });
    const all = await trail(namespace, `from=${encodeURIComponent(start)}`);
    expect(all.entries.map((entry) => entry.action)).toEqual(["namespace.update", "namespace.update"]);
    expect(all.entries[0]?.details).toEqual({ settings: { session_record: false } });
    expect((await trail(namespace, `actor=${namespace.owner.username}`)).total).toBe(2);
    expect((await trail(namespace, `target=${namespace.tenantId}&action=namespace.update`)).total).toBe(2);
    expect((await trail(namespace, "actor=somebody-else")).total).toBe(0);
    expect((await trail(namespace, `to=${encodeURIComponent(start)}`)).total).toBe(0);

    const exported = await call("GET", "/api/audit/export?action=namespace.", owner(namespace));
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = exported.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Entry);
    expect(lines.map((line) => line.id)).toEqual(all.entries.map((entry) => entry.id).reverse());
  });

  it("records connectors made, changed and deleted, without their TLS material", async () => {
    const namespace = await seedNamespace();
    const created = await call("POST", "/api/connector", {
      ...owner(namespace),
      body: { enable: false, address: "127.0.0.1", port: 2375 },
    });
    expect(created.status, created.text).toBe(200);
    const uid = created.body.uid as string;
    await call("PATCH", `/api/connector/${uid}`, { ...owner(namespace), body: { port: 2376 } });
    await call("DELETE", `/api/connector/${uid}`, owner(namespace));
    const { entries } = await trail(namespace, "action=connector.");
    expect(entries.map((entry) => [entry.action, entry.target.id, entry.details.port])).toEqual([
      ["connector.delete", uid, 2376],
      ["connector.update", uid, 2376],
      ["connector.create", uid, 2375],
    ]);
    expect(entries[2]?.details).toEqual({ address: "127.0.0.1", port: 2375, secure: false, enable: false, tls: false });
  });

  it("records a device's registration (by the system, with its cause), acceptance, rename, tags and deletion", async () => {
    const namespace = await seedNamespace();
    const device = await seedDevice(namespace);
    const auth = owner(namespace);
    expect((await call("PATCH", `/api/devices/${device.uid}/accept`, auth)).status).toBe(200);
    await call("PUT", `/api/devices/${device.uid}`, { ...auth, body: { name: "renamed-1" } });
    await call("PUT", `/api/devices/${device.uid}/tags`, { ...auth, body: { tags: ["prod"] } });
    await call("DELETE", `/api/devices/${device.uid}`, auth);
    const { entries } = await trail(namespace, "action=device.");
    expect(entries.map((entry) => [entry.action, entry.target.id])).toEqual([
      ["device.delete", device.uid],
      ["device.tags", device.uid],
      ["device.update", device.uid],
      ["device.accept", device.uid],
      ["device.register", device.uid],
    ]);
    expect(entries[1]?.details).toEqual({ name: "renamed-1", tags: ["prod"] });
    expect(entries[3]?.details).toMatchObject({ from: "pending" });
    expect(entries[4]).toMatchObject({ actor: { type: "system" }, details: { cause: "registered by its agent" } });
  });

  it("shows a namespace only its own rows", async () => {
    const [one, two] = [await seedNamespace(), await seedNamespace()];
    await call("POST", "/api/firewall/rules", { ...owner(one), body: rule });
    expect((await trail(one, "action=firewall_rule.create")).total).toBe(1);
    expect((await trail(two, "action=firewall_rule.create")).total).toBe(0);
  });

  it("proves a namespace's chain with the CLI, and the service's trail of logins", async () => {
    const namespace = await seedNamespace();
    await call("POST", "/api/firewall/rules", { ...owner(namespace), body: rule });
    const rows = (await trail(namespace)).total;
    await expectOk(cli(data, "audit", "verify", namespace.name), new RegExp(`is intact: ${rows} rows`));
    await call("POST", "/api/login", { body: { username: namespace.owner.username, password: "wrong" } });
    await expectOk(cli(data, "audit", "verify", "--service"), /the service's audit trail is intact: \d+ rows/);
    await expectError(cli(data, "audit", "verify", uniqueName("missing")), 1, /namespace '.*' not found/);
  });

  it("proves a recorded session's frames with the CLI", async () => {
    const namespace = await seedNamespace();
    await setRecording(namespace, true);
    const { session } = await seedSession(namespace);
    for (const message of ["$ ", "ls\r\n", "a b c\r\n"]) {
      const stored = await call("POST", `/api/sessions/${session.uid}/record`, {
        headers: await internalHeaders(),
        body: frame(session.uid, message),
      });
      expect(stored.status, stored.text).toBe(200);
    }
    await expectOk(cli(data, "audit", "verify-recording", session.uid), /is intact: 3 frames/);
    await expectError(cli(data, "audit", "verify-recording", randomUid()), 1, /session .* not found/);
  });
});
