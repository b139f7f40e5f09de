import type { Client, ParsedKey } from "ssh2";
import { clearFailures, countAttempt } from "../auth/lockout";
import { getConfig } from "../config";
import type { Db } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { type ContainerTarget, unscopedFindContainer, unscopedIsDeviceOnline } from "../services/connectors";
import {
  assertFirewallAllows,
  assertKeyAdmitted,
  auditSshLogin,
  keyProvenBySignature,
  Refusal,
  type Target,
  type TargetDevice,
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
    // A client asks this of each key it holds until one is admitted: a key that is not is no
    // decision to record. The device being offline, or a firewall rule, is.
    await assertKeyAdmitted(this.db, device, target.user, key);
    try {
      await this.assertReachable(device.uid, await unscopedFindContainer(this.db, device.uid));
      await assertFirewallAllows(this.db, device, target.user, this.peer.ip);
    } catch (error) {
      if (error instanceof Refusal) await this.audit(device, target, key, error.message);
      throw error;
    }
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
    let key: ParsedKey | undefined;
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
      key =
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
      await this.audit(device, target, key);
      return link;
    } catch (error) {
      session.reason = error instanceof Refusal ? error.message : "internal error";
      await this.audit(device, target, key, session.reason);
      throw error;
    }
  }

  private async audit(device: TargetDevice, target: Target, key: ParsedKey | undefined, refusal?: string) {
    const login = { user: target.user, source: this.peer.ip, key, session: this.sessionUid, refusal };
    // The login's outcome stands whether or not its audit row could be written; the log says so.
    await auditSshLogin(this.db, device, login).catch((error: unknown) =>
      log.warn("writing an SSH login's audit row failed", { session: this.sessionUid, error: errorText(error) }),
    );
  }
}
