import type { Duplex } from "node:stream";
import ssh2, { type Client } from "ssh2";
import { Refusal, type TargetDevice } from "../services/ssh-access";
import { sshKeyFromPem } from "./device-keys";
import { hostKey } from "./host-key";

const deviceLoginMs = 20_000;

export type DeviceCredential = { password: string } | { gatewayKey: true };

/**
 * Logs into the device's own SSH server through its tunnel, as `user`: with the user's password
 * (the agent checks the local account), or with the gateway's host key once the gateway itself
 * has verified the user's key, its rules and the firewall. The device must present its
 * registered key.
 */
export async function dialDevice(
  openChannel: () => Promise<Duplex>,
  device: TargetDevice,
  session: { uid: string; ip: string; port: number; user: string },
  credential: DeviceCredential,
): Promise<Client> {
  const deviceKey = sshKeyFromPem(device.publicKey);
  if (!deviceKey) throw new Refusal("the device's stored key is not usable");
  const channel = await openChannel().catch((error: Error) => {
    throw error instanceof Refusal ? error : new Refusal(`the device did not open a channel: ${error.message}`);
  });
  const client = new ssh2.Client();
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      client.removeAllListeners("ready");
      client.end();
      channel.destroy();
      reject(new Refusal(reason));
    };
    client.once("ready", () => {
      client.removeAllListeners("error");
      client.on("error", () => client.end());
      resolve(client);
    });
    client.once("error", (error) =>
      fail(
        (error as Error & { level?: string }).level === "client-authentication"
          ? "the device refused the credentials"
          : `the device connection failed: ${error.message}`,
      ),
    );
    client.connect({
      sock: channel,
      username: session.user,
      ...("password" in credential ? { password: credential.password } : { privateKey: hostKey() }),
      tryKeyboard: false,
      readyTimeout: deviceLoginMs,
      hostVerifier: (key: Buffer) => key.equals(deviceKey.getPublicSSH()),
    });
  });
}
