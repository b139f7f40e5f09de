import type { Client, ParsedKey } from "ssh2";
import { clearFailures, countAttempt } from "../auth/lockout";
import { getConfig } from "../config";
import type { Db } from "../db";
import { type ContainerTarget, unscopedFindContainer, unscopedIsDeviceOnline } from "../services/connectors";
import {
  assertFirewallAllows,
  assertKeyAdmitted,
  keyProvenBySignature,
  Refusal,
  type Target,
  type UserNameSignature,
  unscopedFindTargetDevice,
} from "../services/ssh-access";
import { dialContainer } from "./container-link";
import { locateTunnel, openDeviceChannel } from "./device-channel";
import { dialDevice } from "./device-link";
import { LiveSession, newSessionUid } from "./live-session";

/**
 * A credential: a password to pass on, a key the gateway has checked the user holds, or a
 * signature of the user name to check against a key of the namespace (browser terminal).
 */
export type Credential = { password: string } | { key: ParsedKey } | { userNameSignature: UserNameSignature };

export type Peer = { ip: string; port: number };

/**
 * The logins of one user connection (SSH or browser terminal): the session row is created at the
 * first real attempt and bound to that device; each attempt counts toward the lockout of the
 * (source, login) pair before it is checked.
 */
export class DeviceLogin {
  session?: LiveSession;

  constructor(
    private readonly db: Db,
    private readonly peer: Peer,
    private readonly onSessionClose: (reason: string) => void,
    private readonly sessionUid = newSessionUid(),
  ) {}

  /**
   * Answers a public-key query (no signature yet): whether the key would be admitted. Reads
   * only: no session row, no lockout count, no call to the device.
   */
  async wouldAdmitKey(target: Target, key: ParsedKey): Promise<void> {
    const device = await unscopedFindTargetDevice(this.db, target);
    await this.assertReachable(device.uid, await unscopedFindContainer(this.db, device.uid));
    await assertKeyAdmitted(this.db, device, target.user, key);
    await assertFirewallAllows(this.db, device, target.user, this.peer.ip);
  }

  /** A device is reachable through its tunnel; a container, while it runs. */
  private async assertReachable(deviceUid: string, container: ContainerTarget | undefined) {
    const isReachable = container
      ? await unscopedIsDeviceOnline(this.db, deviceUid)
      : (await locateTunnel(this.db, deviceUid)) !== undefined;
    if (!isReachable) throw new Refusal("the device is offline");
  }

  /** A full attempt: on success, the logged-in connection to the device. Throws a Refusal. */
  async attempt(target: Target, credential: Credential): Promise<Client> {
    const device = await unscopedFindTargetDevice(this.db, target);
    if (!this.session) {
      this.session = await LiveSession.start(
        this.db,
        { uid: this.sessionUid, device, username: target.user, ipAddress: this.peer.ip },
        this.onSessionClose,
      );
    } else if (this.session.device.uid !== device.uid) {
      throw new Refusal("a later attempt named another device");
    }
    const session = this.session;
    try {
      // Checked first: no credential is tried on an offline device, so it counts for nothing.
      const container = await unscopedFindContainer(this.db, device.uid);
      await this.assertReachable(device.uid, container);
      // Keyed on what the login resolves to, so USER@NAMESPACE.DEVICE and USER@UID share one count.
      const lockout = { source: this.peer.ip, subject: `ssh:${target.user}@${device.uid}` };
      if ((await countAttempt(this.db, lockout, getConfig().LOCKOUT_MAX_MINUTES)).wasLocked) {
        throw new Refusal("too many failed attempts from this source: locked out");
      }
      // A container has no SSH server of its own to check a password: public keys only (docs/connectors.md).
      if (container && "password" in credential) throw new Refusal("a container takes public keys only, not passwords");
      await assertFirewallAllows(this.db, device, target.user, this.peer.ip);
      const key =
        "userNameSignature" in credential
          ? await keyProvenBySignature(this.db, device, target.user, credential.userNameSignature)
          : "key" in credential
            ? credential.key
            : undefined;
      if (key) await assertKeyAdmitted(this.db, device, target.user, key);
      const openChannel = () =>
        openDeviceChannel(this.db, { deviceUid: device.uid, sessionUid: session.uid, ...this.peer });
      const link = container
        ? await dialContainer(container, target.user)
        : await dialDevice(
            openChannel,
            device,
            { uid: session.uid, ip: this.peer.ip, port: this.peer.port, user: target.user },
            "password" in credential ? { password: credential.password } : { gatewayKey: true },
          );
      await clearFailures(this.db, lockout);
      await session.authenticated();
      session.reason = "";
      return link;
    } catch (error) {
      session.reason = error instanceof Refusal ? error.message : "internal error";
      throw error;
    }
  }
}
