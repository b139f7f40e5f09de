import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** How a host name becomes addresses; the system's resolver in the product, one of the test's own in tests. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

type Range = [network: string, prefix: number, kind: string];

// Addresses a connector must not make the server dial unless CONNECTOR_ALLOWED_CIDRS lists them:
// the server's own loopback, its private networks, link-local ones (where cloud metadata services
// answer, e.g. 169.254.169.254 and fd00:ec2::254) and ranges that are not plain public unicast.
const refusedV4: Range[] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT, metadata)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved (benchmarking)"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const refusedV6: Range[] = [
  ["::", 127, "loopback or unspecified"],
  ["::ffff:0:0", 96, "IPv4-mapped"],
  ["64:ff9b::", 96, "IPv4-translated"],
  ["2002::", 16, "6to4 (carries an IPv4 address)"],
  ["fc00::", 7, "private (unique local, metadata)"],
  ["fe80::", 10, "link-local"],
  ["ff00::", 8, "multicast"],
];

/** A refusal to dial a connector's (or a webhook's) address, with the reason people see. */
export class ConnectorAddressRefused extends Error {}

/** The range an address falls in that connectors may not dial, or undefined for a public address. */
export function refusedRangeOf(address: string): string | undefined {
  const family = isIP(address);
  const ranges = family === 4 ? refusedV4 : family === 6 ? refusedV6 : [];
  const type = family === 4 ? "ipv4" : "ipv6";
  if (family === 0) return "not an IP address";
  for (const [network, prefix, kind] of ranges) {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    if (list.check(address, type)) return kind;
  }
  return undefined;
}

/** CONNECTOR_ALLOWED_CIDRS as a list to check addresses against. */
export function allowList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * The address to dial for a connector's (or a webhook's) host: every address the host resolves to must be public
 * or allowed, else the dial is refused (a name with one private address among public ones is
 * refused too). The caller connects to the address answered, never resolving the name again, so
 * a second answer of a name server cannot change what was checked.
 */
export async function checkConnectorAddress(
  host: string,
  allowed: BlockList,
  resolve: Resolver,
  allowedSetting = "CONNECTOR_ALLOWED_CIDRS",
) {
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await resolve(host);
  if (addresses.length === 0) throw new ConnectorAddressRefused(`${host} resolves to no address`);
  for (const { address, family } of addresses) {
    if (allowed.check(address, family === 6 ? "ipv6" : "ipv4")) continue;
    const range = refusedRangeOf(address);
    if (range) {
      const shown = address === host ? address : `${host} (${address})`;
      throw new ConnectorAddressRefused(`${shown} is a ${range} address, not allowed (${allowedSetting})`);
    }
  }
  const [first] = addresses;
  if (!first) throw new ConnectorAddressRefused(`${host} resolves to no address`);
  return first;
}
