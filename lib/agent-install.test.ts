import { describe, expect, it } from "vitest";
import { agentInstallCommand } from "./agent-install";

const tenantId = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

describe("agentInstallCommand", () => {
  it("pipes the server's installer into sh with the tenant id, and the hostname when given", () => {
    expect(agentInstallCommand({ server: "https://devices.example.com/", tenantId })).toBe(
      `curl -fsSL https://devices.example.com/install.sh | sh -s -- --tenant ${tenantId}`,
    );
    expect(
      agentInstallCommand({ server: "http://10.0.0.5:8080", tenantId, hostname: "lab-pc", downloader: "wget" }),
    ).toBe(`wget -qO- http://10.0.0.5:8080/install.sh | sh -s -- --tenant ${tenantId} --hostname lab-pc`);
  });

  it("writes the address as the URL class does: no default port", () => {
    expect(agentInstallCommand({ server: "https://devices.example.com:443", tenantId })).toBe(
      `curl -fsSL https://devices.example.com/install.sh | sh -s -- --tenant ${tenantId}`,
    );
  });

  it("quotes what sh would otherwise interpret", () => {
    expect(agentInstallCommand({ server: "http://host/a'b", tenantId, hostname: "x;y" })).toBe(
      `curl -fsSL 'http://host/a'\\''b/install.sh' | sh -s -- --tenant ${tenantId} --hostname 'x;y'`,
    );
  });
});
