import { and, eq } from "drizzle-orm";
import type { ParsedKey } from "ssh2";
import ssh2 from "ssh2";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { publicKeys } from "@/models/public-keys";
import { recordAudit } from "../audit/trail";
import { getConfig } from "../config";
import type { Executor } from "../db";
import { hexUidShape } from "../protocol";
import { md5Fingerprint } from "../ssh-public-key";
import { filterAdmits } from "./device-filter";
import { decideConnection } from "./firewall";
import { planRefusal } from "./plan-limit";
import { keyBlobOfData } from "./public-key-format";
import { searchUserRegex } from "./regex";

/** Why a login is refused: goes to the log and the session row, never to the client. */
export class Refusal extends Error {}

/**
 * `USER@NAMESPACE.DEVICE` or `USER@DEVICE_UID`, the SSH user name people type before `@host`.
 * `tenantId` confines a uid to one namespace (the browser terminal's).
 */
export type Target = { login: string; user: string; namespace?: string; device: string; tenantId?: string };

const label = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function parseTarget(login: string): Target | undefined {
  const at = login.lastIndexOf("@");
  const user = login.slice(0, at);
  const address = login.slice(at + 1).toLowerCase();
  if (at <= 0 || user.length > 255) return undefined;
  if (hexUidShape.test(address)) return { login, user, device: address };
  const [namespace = "", device = "", ...rest] = address.split(".");
  if (rest.length > 0 || !label.test(namespace) || !label.test(device)) return undefined;
  return { login, user, namespace, device };
}

export type TargetDevice = {
  uid: string;
  tenantId: string;
  name: string;
  tags: string[];
  publicKey: string;
  isRecorded: boolean;
  announcement: string;
};

/**
 * The accepted device a target names, in whichever namespace the login names (or the one
 * `tenantId` confines it to): the gateway knows no caller's namespace before the login.
 */
export async function unscopedFindTargetDevice(db: Executor, target: Target): Promise<TargetDevice> {
  const [row] = await db
    .select({
      uid: devices.uid,
      tenantId: devices.tenantId,
      name: devices.name,
      tags: devices.tags,
      status: devices.status,
      publicKey: devices.publicKey,
      isRecorded: namespaces.sessionRecord,
      announcement: namespaces.connectionAnnouncement,
    })
    .from(devices)
    .innerJoin(namespaces, eq(namespaces.tenantId, devices.tenantId))
    .where(
      and(
        target.namespace === undefined
          ? eq(devices.uid, target.device)
          : and(eq(namespaces.name, target.namespace), eq(devices.name, target.device)),
        target.tenantId === undefined ? undefined : eq(devices.tenantId, target.tenantId),
      ),
    );
  if (!row) throw new Refusal("unknown namespace or device");
  if (row.status === "removed")
    throw new Refusal("the device is removed: it is not among the devices its namespace's plan keeps");
  if (row.status !== "accepted") throw new Refusal(`the device is ${row.status}`);
  const planRefused = await planRefusal(db, row.tenantId, row.uid);
  if (planRefused) throw new Refusal(planRefused);
  const { status: _, ...device } = row;
  return device;
}

/**
 * Refuses unless `key` is one of the device namespace's public keys whose filter admits the
 * device and whose username pattern matches the local user.
 */
export async function assertKeyAdmitted(db: Executor, device: TargetDevice, user: string, key: ParsedKey) {
  const [row] = await db
    .select({ data: publicKeys.data, filter: publicKeys.filter, username: publicKeys.username })
    .from(publicKeys)
    .where(
      and(eq(publicKeys.tenantId, device.tenantId), eq(publicKeys.fingerprint, md5Fingerprint(key.getPublicSSH()))),
    );
  if (!row || !keyBlobOfData(row.data).equals(key.getPublicSSH()))
    throw new Refusal("the key is not a key of the namespace");
  if (filterAdmits(row.filter, device) !== true) throw new Refusal("the key's filter does not admit the device");
  if (searchUserRegex(row.username, user) !== true) throw new Refusal("the key's username pattern does not match");
}

/** A public key's fingerprint and the signature its private key made of the local user name. */
export type UserNameSignature = { fingerprint: string; signature: string };

/**
 * The browser terminal's key login as ShellHub's UI makes it (the private key stays in the
 * browser): the device namespace's public key with this MD5 fingerprint, proven by a signature
 * of the local user name's UTF-8 bytes, checked as the key's SSH algorithm checks it (`ssh-rsa`:
 * RSASSA-PKCS1-v1_5 with SHA-1; ed25519; ECDSA: DER with the curve's hash). Refuses an unknown
 * fingerprint or a signature that does not verify; the key's rules are `assertKeyAdmitted`'s.
 */
export async function keyProvenBySignature(
  db: Executor,
  device: TargetDevice,
  user: string,
  proof: UserNameSignature,
): Promise<ParsedKey> {
  const [row] = await db
    .select({ data: publicKeys.data })
    .from(publicKeys)
    .where(and(eq(publicKeys.tenantId, device.tenantId), eq(publicKeys.fingerprint, proof.fingerprint)));
  if (!row) throw new Refusal("the fingerprint is not a key of the namespace");
  const parsed = ssh2.utils.parseKey(Buffer.from(row.data, "base64"));
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Refusal("the namespace's key does not parse");
  if (key.verify(Buffer.from(user, "utf8"), Buffer.from(proof.signature, "base64")) !== true) {
    throw new Refusal("the signature of the user name does not verify");
  }
  return key;
}

/** In the cloud edition, refuses when the namespace's firewall rules deny the connection. */
export async function assertFirewallAllows(db: Executor, device: TargetDevice, user: string, sourceIp: string) {
  if (getConfig().EDITION !== "cloud") return;
  const { action, rule } = await decideConnection(db, device.tenantId, { sourceIp, username: user, device });
  if (action === "deny")
    throw new Refusal(`firewall rule #${rule?.id} (priority ${rule?.priority}) denies the connection`);
}

/**
 * Records one SSH login decision (gateway or browser terminal) in the device's namespace: who
 * (the login, with the key's fingerprint or "password"), from where, allowed or refused and why.
 */
export function auditSshLogin(
  db: Executor,
  device: TargetDevice,
  login: { user: string; source: string; key?: ParsedKey; session: string; refusal?: string },
) {
  return recordAudit(db, {
    tenantId: device.tenantId,
    actor: { type: "ssh", id: login.key ? md5Fingerprint(login.key.getPublicSSH()) : "password", name: login.user },
    source: login.source,
    action: "ssh.login",
    target: { type: "device", id: device.uid },
    outcome: login.refusal === undefined ? "success" : "failure",
    details: { device: device.name, session: login.session, ...(login.refusal ? { reason: login.refusal } : {}) },
  });
}
