import { BlockList, isIP } from "node:net";
import { getConfig } from "../config";
import { processSingleton } from "../process-state";

/** Set by server.ts from the TCP peer on every request, overwriting anything a client sent. */
export const peerHeader = "x-das-peer-address";

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function normalizeAddress(address: string | undefined): string {
  if (!address) return "unknown";
  return address.startsWith("::ffff:") && ipv4.test(address.slice(7)) ? address.slice(7) : address;
}

function trustedProxies(): BlockList {
  return processSingleton("trusted proxies", () => {
    const list = new BlockList();
    for (const entry of getConfig().TRUSTED_PROXIES) {
      const [address = "", prefix] = entry.split("/");
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix) list.addSubnet(address, Number(prefix), family);
      else list.addAddress(address, family);
    }
    return list;
  });
}

export function isTrustedProxy(peer: string): boolean {
  const family = isIP(peer);
  return family !== 0 && trustedProxies().check(peer, family === 6 ? "ipv6" : "ipv4");
}

/** The client's address: the peer, or `X-Real-IP` when the peer is a trusted proxy. */
export function sourceAddress(headers: Headers): string {
  return sourceOf(headers.get(peerHeader) ?? undefined, headers.get("x-real-ip") ?? undefined);
}

/** `sourceAddress` from the TCP peer and the `X-Real-IP` header themselves. */
export function sourceOf(peerAddress: string | undefined, realIpHeader: string | undefined): string {
  const peer = normalizeAddress(peerAddress);
  const realIp = realIpHeader?.trim();
  const isValidRealIp = realIp !== undefined && ipv4.test(realIp) && isIP(realIp) === 4;
  return isValidRealIp && isTrustedProxy(peer) ? realIp : peer;
}
