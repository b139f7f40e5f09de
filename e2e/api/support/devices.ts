import { generateKeyPairSync } from "node:crypto";
import { call, type SeededNamespace, uniqueName } from "./client";

export type RegisteredDevice = { uid: string; token: string; name: string };

/** A device of the namespace, registered as its agent does (`POST /api/devices/auth`), with its token. */
export async function registerDevice(
  namespace: SeededNamespace,
  hostname = uniqueName("dev"),
): Promise<RegisteredDevice> {
  const publicKey = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
    type: "spki",
    format: "pem",
  });
  const response = await call("POST", "/api/devices/auth", {
    body: {
      info: { id: "debian", pretty_name: "Debian GNU/Linux 12", version: "v0.16.4", arch: "amd64", platform: "native" },
      sessions: [],
      hostname,
      identity: { mac: "02:42:ac:11:00:02" },
      public_key: publicKey.toString(),
      tenant_id: namespace.tenantId,
    },
  });
  if (response.status !== 200) throw new Error(`device auth failed: ${response.status} ${response.text}`);
  return { uid: response.body.uid, token: response.body.token, name: response.body.name };
}
