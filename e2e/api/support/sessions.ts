import { createHash, randomUUID } from "node:crypto";
import { registerAgent } from "./agents";
import { call, type SeededNamespace } from "./client";
import { internalHeaders } from "./internal";

/**
 * Devices and sessions for tests. Devices register as agents do (POST /api/devices/auth);
 * sessions start as the SSH gateway starts them (POST /internal/sessions, internal secret).
 */

export const randomUid = () => createHash("sha256").update(randomUUID()).digest("hex");

export type SeededDevice = { uid: string; token: string; name: string };

/** A new device (pending) in the namespace, registered as its agent would, with its device token. */
export async function seedDevice(namespace: Pick<SeededNamespace, "tenantId">): Promise<SeededDevice> {
  const info = {
    id: "debian",
    pretty_name: "Debian GNU/Linux 12",
    version: "0.1.0",
    arch: "amd64",
    platform: "docker",
  };
  const { uid, token, name } = await registerAgent(namespace.tenantId, { info });
  return { uid, token, name };
}

export type SessionInput = {
  uid: string;
  device_uid: string;
  username: string;
  ip_address: string;
  type: string;
  term: string;
};

export const sessionInput = (
  device: Pick<SeededDevice, "uid">,
  overrides: Partial<SessionInput> = {},
): SessionInput => ({
  uid: randomUid(),
  device_uid: device.uid,
  username: "root",
  ip_address: "192.0.2.10",
  type: "shell",
  term: "xterm-256color",
  ...overrides,
});

/** A new active session on `device` (a new device of the namespace when not given), as the gateway starts it. */
export async function seedSession(
  namespace: Pick<SeededNamespace, "tenantId">,
  options: { device?: SeededDevice } & Partial<SessionInput> = {},
) {
  const { device = await seedDevice(namespace), ...overrides } = options;
  const response = await call("POST", "/internal/sessions", {
    headers: await internalHeaders(),
    body: sessionInput(device, overrides),
  });
  if (response.status !== 200) throw new Error(`session start failed: ${response.status} ${response.text}`);
  return { device, session: response.body as { uid: string; device_uid: string; recorded: boolean } };
}

/** Turns the namespace's session recording on or off (sessions started later follow it). */
export async function setRecording(namespace: SeededNamespace, isOn: boolean) {
  const response = await call("PUT", `/api/users/security/${namespace.tenantId}`, {
    token: namespace.owner.tenantToken,
    body: { session_record: isOn },
  });
  if (response.status !== 200) throw new Error(`session record failed: ${response.status} ${response.text}`);
}

export const frame = (uid: string, message = "$ ls\r\n", width = 80, height = 24) => ({ uid, message, width, height });
