import { call, randomUid } from "../client";
import { internalHeaders } from "../internal";
import { type SeededDevice, seedDevice } from "./devices";
import type { SeededNamespace } from "./namespaces";

/** Sessions, started as the SSH gateway starts them (POST /internal/sessions, internal secret). */

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
  namespace: SeededNamespace,
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
