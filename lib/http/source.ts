import type { IncomingHttpHeaders } from "node:http";
import { BlockList, isIP } from "node:net";
import { getConfig } from "../config";
import { badRequest } from "../errors";
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
function sourceOf(peerAddress: string | undefined, realIpHeader: string | undefined): string {
  const peer = normalizeAddress(peerAddress);
  const realIp = realIpHeader?.trim();
  return realIp !== undefined && isIpv4(realIp) && isTrustedProxy(peer) ? realIp : peer;
}

const isIpv4 = (text: string) => ipv4.test(text) && isIP(text) === 4;

/**
 * `sourceAddress` from Node's headers, for the agents' call (lib/http/direct.ts), which has always
 * refused an `X-Real-IP` that is not an IPv4 address (400) where other operations ignore it.
 */
export function strictSourceOf(headers: IncomingHttpHeaders): string {
  const realIp = headers["x-real-ip"] as string | undefined;
  if (realIp !== undefined && !isIpv4(realIp.trim())) throw badRequest("X-Real-IP must be an IPv4 address");
  return sourceOf(headers[peerHeader] as string | undefined, realIp);
}
