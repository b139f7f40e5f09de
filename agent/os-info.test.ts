import type { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { defaultRouteInterface, parseOsRelease, primaryMac, readDeviceInfo } from "./os-info";

const debian = `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
# a comment
ID=debian
HOME_URL='https://www.debian.org/'
QUOTED="say \\"hi\\" for \\$5"
`;

const routes = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
eth1\t00000000\t0102A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
`;

type Interfaces = ReturnType<typeof networkInterfaces>;
const address = (mac: string, internal = false) =>
  ({ address: "192.0.2.1", netmask: "255.255.255.0", family: "IPv4", mac, internal, cidr: null }) as const;

describe("os-release", () => {
  it("reads quoted and unquoted values and skips comments", () => {
    expect(parseOsRelease(debian)).toEqual({
      PRETTY_NAME: "Debian GNU/Linux 12 (bookworm)",
      NAME: "Debian GNU/Linux",
      VERSION_ID: "12",
      ID: "debian",
      HOME_URL: "https://www.debian.org/",
      QUOTED: 'say "hi" for $5',
    });
  });

  it("describes this machine", () => {
    const info = readDeviceInfo();
    expect(info.id).not.toBe("");
    expect(info.arch).toMatch(/^(x86_64|aarch64|armv\w+|i\d86|riscv64|ppc64le|s390x)$/);
    expect(["docker", "native"]).toContain(info.platform);
  });
});

describe("primary MAC address", () => {
  it("is the default route's interface with the lowest metric", () => {
    expect(defaultRouteInterface(routes)).toBe("eth1");
    const interfaces: Interfaces = {
      lo: [address("00:00:00:00:00:00", true)],
      eth0: [address("02:00:00:00:00:01")],
      eth1: [address("02:00:00:00:00:02")],
    };
    expect(primaryMac(routes, interfaces)).toBe("02:00:00:00:00:02");
  });

  it("falls back to the first non-internal interface without a default route", () => {
    const interfaces: Interfaces = { lo: [address("00:00:00:00:00:00", true)], eth0: [address("02:00:00:00:00:01")] };
    expect(primaryMac("Iface\tDestination\n", interfaces)).toBe("02:00:00:00:00:01");
    expect(primaryMac("", { lo: [address("00:00:00:00:00:00", true)] })).toBe("");
  });
});
