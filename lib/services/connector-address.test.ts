import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowList, ConnectorAddressRefused, checkConnectorAddress, type Resolver } from "./connector-address";
import { engineClient, readEngineInfo } from "./container-engine";

/**
 * The rule that keeps connectors from making the server dial its own networks. The ranges are
 * checked on the address check itself, with names resolved by the test's own resolver: no test
 * ever asks the server to dial an address off this machine.
 */

const resolverOf =
  (answers: Record<string, string[]>): Resolver =>
  async (host) =>
    (answers[host] ?? []).map((address) => ({ address, family: net.isIP(address) }));

const refused: [address: string, kind: RegExp][] = [
  ["127.0.0.1", /loopback/],
  ["127.10.0.5", /loopback/],
  ["10.1.2.3", /private/],
  ["172.16.0.1", /private/],
  ["172.31.255.254", /private/],
  ["192.168.1.1", /private/],
  ["169.254.169.254", /link-local \(metadata\)/],
  ["100.100.100.200", /metadata/],
  ["0.0.0.0", /unspecified/],
  ["224.0.0.1", /multicast/],
  ["255.255.255.255", /reserved/],
  ["::1", /loopback/],
  ["::", /unspecified/],
  ["::ffff:127.0.0.1", /IPv4-mapped/],
  ["::ffff:a9fe:a9fe", /IPv4-mapped/],
  ["fd00:ec2::254", /metadata/],
  ["fe80::1", /link-local/],
  ["64:ff9b::a9fe:a9fe", /IPv4-translated/],
];

describe("the connector address check", () => {
  const none = allowList([]);

  it.each(refused)("refuses %s, given as an address or by a name", async (address, kind) => {
    await expect(checkConnectorAddress(address, none, resolverOf({}))).rejects.toThrow(kind);
    const resolve = resolverOf({ "engine.example.org": [address] });
    const refusal = checkConnectorAddress("engine.example.org", none, resolve);
    await expect(refusal).rejects.toBeInstanceOf(ConnectorAddressRefused);
    await expect(refusal).rejects.toThrow(`engine.example.org (${address})`);
  });

  it("takes public addresses and answers the one to dial", async () => {
    const resolve = resolverOf({ "engine.example.org": ["203.0.113.10", "2001:db8::10"] });
    await expect(checkConnectorAddress("engine.example.org", none, resolve)).resolves.toEqual({
      address: "203.0.113.10",
      family: 4,
    });
    await expect(checkConnectorAddress("198.51.100.7", none, resolve)).resolves.toMatchObject({
      address: "198.51.100.7",
    });
  });

  it("refuses a name with one private address among public ones, and a name with none", async () => {
    const resolve = resolverOf({ mixed: ["203.0.113.10", "10.0.0.8"], empty: [] });
    await expect(checkConnectorAddress("mixed", none, resolve)).rejects.toThrow(/mixed \(10\.0\.0\.8\) is a private/);
    await expect(checkConnectorAddress("empty", none, resolve)).rejects.toThrow(/resolves to no address/);
  });

  it("takes what CONNECTOR_ALLOWED_CIDRS lists, and only that", async () => {
    const allowed = allowList(["10.20.0.0/16", "127.0.0.1", "fd00::/8"]);
    const resolve = resolverOf({});
    await expect(checkConnectorAddress("10.20.3.4", allowed, resolve)).resolves.toMatchObject({ address: "10.20.3.4" });
    await expect(checkConnectorAddress("127.0.0.1", allowed, resolve)).resolves.toMatchObject({ address: "127.0.0.1" });
    await expect(checkConnectorAddress("fd00:ec2::254", allowed, resolve)).resolves.toMatchObject({ family: 6 });
    await expect(checkConnectorAddress("10.21.0.1", allowed, resolve)).rejects.toThrow(/private/);
    await expect(checkConnectorAddress("127.0.0.2", allowed, resolve)).rejects.toThrow(/loopback/);
  });
});

describe("the check at dial time", () => {
  // A canary on the loopback: the client must never connect to it while the loopback is not allowed.
  let canary: net.Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    canary = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
    port = (canary.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => canary.close(resolve)));

  it("refuses before connecting, for an address and for a name that resolves to it", async () => {
    const dial = { allowed: [], resolve: resolverOf({ "engine.test": ["127.0.0.1"] }) };
    for (const address of ["127.0.0.1", "engine.test"]) {
      const engine = engineClient({ address, port }, { dial });
      await expect(readEngineInfo(engine)).rejects.toThrow(/loopback address, not allowed/);
    }
    const secure = engineClient({ address: "127.0.0.1", port, tls: { ca: "", cert: "", key: "" } }, { dial });
    await expect(readEngineInfo(secure)).rejects.toBeInstanceOf(ConnectorAddressRefused);
    expect(connections).toBe(0);
  });

  it("checks the name again on every dial: a name that now resolves to the loopback is refused", async () => {
    const answers: Record<string, string[]> = { "engine.test": ["127.0.0.1"] };
    const allowed = { allowed: ["127.0.0.1/32"], resolve: resolverOf(answers) };
    // Allowed: the canary sees the connection (and closes it, which fails the call).
    await expect(readEngineInfo(engineClient({ address: "engine.test", port }, { dial: allowed }))).rejects.toThrow();
    expect(connections).toBe(1);
    const refusedNow = { allowed: [], resolve: resolverOf(answers) };
    await expect(readEngineInfo(engineClient({ address: "engine.test", port }, { dial: refusedNow }))).rejects.toThrow(
      /loopback/,
    );
    expect(connections).toBe(1);
  });
});
