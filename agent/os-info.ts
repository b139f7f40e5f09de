import { existsSync, readFileSync } from "node:fs";
import { machine, networkInterfaces } from "node:os";
import { version } from "../lib/version";

/** The `info` object of the agent's calls. `version` is the agent's own version. */
export type DeviceInfo = { id: string; pretty_name: string; version: string; arch: string; platform: string };

/** os-release(5): KEY=value lines, values optionally quoted with shell escapes. */
export function parseOsRelease(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (!match?.[1]) continue;
    let value = (match[2] ?? "").trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\([\\$"`])/g, "$1");
    }
    fields[match[1]] = value;
  }
  return fields;
}

function readOsRelease(): Record<string, string> {
  for (const file of ["/etc/os-release", "/usr/lib/os-release"]) {
    try {
      return parseOsRelease(readFileSync(file, "utf8"));
    } catch {}
  }
  return {};
}

export function readDeviceInfo(): DeviceInfo {
  const release = readOsRelease();
  return {
    id: release.ID ?? "linux",
    pretty_name: release.PRETTY_NAME ?? release.NAME ?? "Linux",
    version,
    arch: machine(),
    platform: existsSync("/.dockerenv") ? "docker" : "native",
  };
}

/** The interface of the default route with the lowest metric in /proc/net/route, if any. */
export function defaultRouteInterface(routeTable: string): string | undefined {
  let best: { name: string; metric: number } | undefined;
  for (const line of routeTable.split("\n").slice(1)) {
    const [name, destination, , , , , metric, mask] = line.trim().split(/\s+/);
    if (!name || destination !== "00000000" || mask !== "00000000") continue;
    const value = Number(metric);
    if (!best || value < best.metric) best = { name, metric: value };
  }
  return best?.name;
}

type Interfaces = ReturnType<typeof networkInterfaces>;
const isRealMac = (mac: string | undefined): mac is string => !!mac && mac !== "00:00:00:00:00:00";

/** The MAC of the default-route interface, else of the first non-internal one; "" when there is none. */
export function primaryMac(routeTable: string, interfaces: Interfaces): string {
  const preferred = defaultRouteInterface(routeTable);
  const preferredMac = preferred ? interfaces[preferred]?.find((address) => isRealMac(address.mac))?.mac : undefined;
  if (preferredMac) return preferredMac;
  for (const addresses of Object.values(interfaces)) {
    const external = addresses?.find((address) => !address.internal && isRealMac(address.mac));
    if (external) return external.mac;
  }
  return "";
}

export function readPrimaryMac(): string {
  let routeTable = "";
  try {
    routeTable = readFileSync("/proc/net/route", "utf8");
  } catch {}
  return primaryMac(routeTable, networkInterfaces());
}
