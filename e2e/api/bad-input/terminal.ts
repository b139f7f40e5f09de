import { seedDevice } from "@/testing/seeds/devices";
import { seedNamespace } from "@/testing/seeds/namespaces";
import type { Table } from "../support/bad-input";

const longText = (length: number) => "a".repeat(length);
const fingerprint = Array.from({ length: 16 }, () => "ab").join(":");

function createTerminalTokenTable(): Table {
  return {
    setup: async () => {
      const namespace = await seedNamespace();
      const device = await seedDevice(namespace);
      // Tokens live in the server's memory only: a refused request has nothing to write.
      return {
        credentials: { token: namespace.owner.tenantToken },
        values: { device: device.uid },
        verify: async () => {},
      };
    },
    cases: [
      ["an empty body", () => ({ body: {} }), ["device", "username"]],
      ["no credential", (v) => ({ body: { device: v.device, username: "root" } }), ["password"]],
      [
        "both credentials",
        (v) => ({ body: { device: v.device, username: "root", password: "x", private_key: "y" } }),
        ["password"],
      ],
      [
        "a device uid that is not hex",
        () => ({ body: { device: "z".repeat(64), username: "root", password: "x" } }),
        ["device"],
      ],
      ["an empty username", (v) => ({ body: { device: v.device, username: "", password: "x" } }), ["username"]],
      [
        "a 256-character username",
        (v) => ({ body: { device: v.device, username: longText(256), password: "x" } }),
        ["username"],
      ],
      ["an empty password", (v) => ({ body: { device: v.device, username: "root", password: "" } }), ["password"]],
      [
        "a fingerprint without a signature",
        (v) => ({ body: { device: v.device, username: "root", fingerprint: fingerprint } }),
        ["signature"],
      ],
      [
        "a fingerprint that is not 16 hex pairs",
        (v) => ({ body: { device: v.device, username: "root", fingerprint: "SHA256:abc", signature: "c2ln" } }),
        ["fingerprint"],
      ],
      [
        "a signature that is not base64",
        (v) => ({ body: { device: v.device, username: "root", fingerprint, signature: "not base64!" } }),
        ["signature"],
      ],
      [
        "a signature and a password",
        (v) => ({ body: { device: v.device, username: "root", fingerprint, signature: "c2ln", password: "x" } }),
        ["password"],
      ],
      [
        "a private key that is not a key",
        (v) => ({ body: { device: v.device, username: "root", private_key: "not a key" } }),
        ["private_key"],
      ],
    ],
  };
}

export const tables: Record<string, () => Table> = { createTerminalToken: createTerminalTokenTable };
