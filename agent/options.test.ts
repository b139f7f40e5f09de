import { describe, expect, it } from "vitest";
import { hostnameLabel, OptionsError, parseOptions } from "./options";

const tenant = "3f9a1c6e-8a5b-4c1d-9e2f-0a1b2c3d4e5f";

describe("agent options", () => {
  it("takes flags before environment variables, and defaults", () => {
    const options = parseOptions(["--server", "http://flag.example:8080/", "--hostname", "box"], {
      SERVER_ADDRESS: "http://env.example",
      TENANT_ID: tenant,
      HEARTBEAT_INTERVAL: "0.5",
    });
    expect(options).toMatchObject({
      serverUrl: "http://flag.example:8080",
      tenantId: tenant,
      hostname: "box",
      dataDir: "./agent-data",
      heartbeatMs: 500,
    });
    expect(options.listen).toBeUndefined();
    expect(
      parseOptions(["--listen", "127.0.0.1:2200"], { SERVER_ADDRESS: "https://a.example", TENANT_ID: tenant }).listen,
    ).toEqual({
      host: "127.0.0.1",
      port: 2200,
    });
  });

  it("names every bad option", () => {
    const attempt = () =>
      parseOptions(["--server", "ftp://x", "--tenant-id", "nope", "--heartbeat-interval", "0.01"], {});
    expect(attempt).toThrow(OptionsError);
    expect(attempt).toThrow(/--server:[\s\S]*--tenant-id:[\s\S]*--heartbeat-interval:/);
    expect(() => parseOptions(["--bogus", "1"], {})).toThrow(/bogus/);
  });

  it("turns an OS hostname into one label the server accepts", () => {
    expect(hostnameLabel("web-1.example.com")).toBe("web-1");
    expect(hostnameLabel("my_box")).toBe("my-box");
    expect(hostnameLabel("-x-")).toBe("x");
    expect(hostnameLabel("a".repeat(80))).toHaveLength(63);
  });
});
