import { hash } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { devicePresence, presenceOfDevice } from "@/models/device-presence";
import { devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import type { DeviceCaller } from "../auth/credentials";
import { signDeviceToken } from "../auth/jwt";
import { getConfig } from "../config";
import type { Db, Executor } from "../db";
import {
  badRequest,
  errorText,
  forbidden,
  isUniqueViolation,
  notFound,
  unauthorized,
  ValidationError,
} from "../errors";
import { log } from "../log";
import { maxCachedDevices, processSingleton, setInCache } from "../process-state";
import { type AuthDeviceInput, isPemPublicKey } from "../schemas/agent";
import { isProvenCall, keyDigestOf } from "./device-proof";
import { describeDevice, namespaceState } from "./device-view";
import { publishEvents } from "./events";
import { heartbeatWriter } from "./heartbeats";
import { takeOffline } from "./presence";
import { consumeRateLimit } from "./rate-limit";

/** The device's uid: the same agent (hostname, MAC, key, namespace) always gets the same one. */
export function deviceUidOf(input: Pick<AuthDeviceInput, "hostname" | "identity" | "public_key" | "tenant_id">) {
  const identity = `${input.tenant_id}\n${input.hostname}\n${input.identity.mac.toLowerCase()}\n${input.public_key.trim()}`;
  return hash("sha256", identity, "hex");
}

/** A new device is named after its hostname, or its MAC address with hyphens. */
export function baseNameOf(input: Pick<AuthDeviceInput, "hostname" | "identity">) {
  const name = input.hostname !== "" ? input.hostname : input.identity.mac.replaceAll(":", "-");
  return name.toLowerCase();
}

type Cached<T> = { value: T; at: number };
const namespaceNames = processSingleton("namespace names", () => new Map<string, Cached<string>>());
const deviceTokens = processSingleton("device tokens", () => new Map<string, Cached<string>>());
// The uid a body names (from its hostname and MAC) -> the device its proven key belongs to, for
// agents whose hostname or MAC changed since the device registered.
const keyOwners = processSingleton("device key owners", () => new Map<string, string>());

/** A namespace's name as read within the last 30 s: what nearly every heartbeat answers with. */
function recentNamespaceName(tenantId: string): string | undefined {
  const cached = namespaceNames.get(tenantId);
  return cached && Date.now() - cached.at < 30_000 ? cached.value : undefined;
}

/** A namespace's name read from the database now, kept for the next calls. */
async function readNamespaceName(db: Executor, tenantId: string): Promise<string | undefined> {
  const [row] = await db.select({ name: namespaces.name }).from(namespaces).where(eq(namespaces.tenantId, tenantId));
  if (row) namespaceNames.set(tenantId, { value: row.name, at: Date.now() });
  else namespaceNames.delete(tenantId);
  return row?.name;
}

/** A deleted namespace: its devices' next calls read that it is gone (404), not its name from memory. */
export function forgetNamespaceName(tenantId: string): void {
  namespaceNames.delete(tenantId);
}

/** Tokens last a day; an agent calling every 30 s reuses one for an hour instead of signing anew. */
function recentDeviceToken(uid: string): string | undefined {
  const cached = deviceTokens.get(uid);
  return cached && Date.now() - cached.at < 3_600_000 ? cached.value : undefined;
}

async function signedDeviceToken(uid: string, tenantId: string): Promise<string> {
  const token = signDeviceToken({ uid, tenant: tenantId });
  setInCache(deviceTokens, uid, { value: token, at: Date.now() }, maxCachedDevices);
  return token;
}

/**
 * Registers a device the server has not seen: pending, named after its hostname (a clash in the
 * namespace gets a numeric suffix). Registrations are rate-limited per source and namespace.
 */
async function registerDevice(
  db: Executor,
  input: AuthDeviceInput,
  uid: string,
  source: string,
  isProven: boolean,
): Promise<string> {
  if ((await readNamespaceName(db, input.tenant_id)) === undefined) throw notFound("namespace");
  if (!isPemPublicKey(input.public_key)) {
    throw new ValidationError([{ field: "public_key", message: "not a valid PEM-encoded public key" }]);
  }
  const perMinute = getConfig().DEVICE_REGISTRATIONS_PER_MINUTE;
  await consumeRateLimit(db, `device-registration:${input.tenant_id}:${source}`, perMinute, 60);
  await consumeRateLimit(db, `device-registration:${input.tenant_id}`, perMinute * 20, 60);
  const base = baseNameOf(input).slice(0, 56);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = attempt === 1 ? base : `${base}-${attempt}`;
    try {
      const [inserted] = await db
        .insert(devices)
        .values({
          uid,
          tenantId: input.tenant_id,
          name,
          identity: { mac: input.identity.mac.toLowerCase() },
          info: input.info,
          publicKey: input.public_key,
          keyDigest: keyDigestOf(input.public_key),
          keyProvenAt: isProven ? new Date() : null,
          online: true,
          remoteAddr: source,
        })
        .onConflictDoNothing({ target: devices.uid })
        .returning();
      if (inserted) {
        await announceRegistration(db, inserted, "registered by its agent");
        return inserted.name;
      }
      // The same agent registered concurrently: use what it got.
      const [existing] = await db
        .select({ name: devices.name })
        .from(devices)
        .where(and(eq(devices.uid, uid), eq(devices.tenantId, input.tenant_id)));
      if (existing) return existing.name;
    } catch (error) {
      if (!isUniqueViolation(error, "devices_tenant_name_key")) throw error;
    }
  }
  throw badRequest("no free name for this device in the namespace");
}

/**
 * A new pending device, as its insert returned it: the namespace's live streams get it whole, as
 * the API shows it. Never fails the registration (a namespace deleted meanwhile has no streams left).
 */
export async function announceRegistration(db: Executor, row: typeof devices.$inferSelect, cause: string) {
  try {
    const namespace = await namespaceState(db, row.tenantId);
    // The insert's trigger added its presence row, stamped in the same transaction as created_at.
    const patch = describeDevice({ ...row, lastSeen: row.createdAt }, namespace.name, namespace.isFull);
    await publishEvents(db, [{ tenantId: row.tenantId, type: "device.registered", uid: row.uid, patch, cause }]);
  } catch (error) {
    log.warn("announcing a registration failed", { device: row.uid, error: errorText(error) });
  }
}

const mustSign = () =>
  unauthorized(
    "this device's agent must sign its call with the device key (proof), or the namespace must allow unsigned agents",
  );

/**
 * A call the heartbeat did not take: the device exists but the call may not act for it; or the
 * key is a device's whose hostname or MAC changed (with a proof, the key is the device: it gets
 * the new identity and info); or a device the server has not seen, which registers.
 */
async function identifyDevice(db: Executor, input: AuthDeviceInput, uid: string, source: string, isProven: boolean) {
  keyOwners.delete(uid);
  const [named] = await db
    .select({ name: devices.name })
    .from(devices)
    .where(and(eq(devices.uid, uid), eq(devices.tenantId, input.tenant_id)));
  if (named && !isProven) throw mustSign();
  if (named) return { uid, name: named.name };
  const [keyOwner] = await db
    .select({ uid: devices.uid, name: devices.name })
    .from(devices)
    .innerJoin(devicePresence, presenceOfDevice)
    .where(and(eq(devices.tenantId, input.tenant_id), eq(devices.keyDigest, keyDigestOf(input.public_key))))
    .orderBy(desc(sql`${devices.status} = 'accepted'`), desc(devicePresence.lastSeen))
    .limit(1);
  if (!keyOwner) return { uid, name: await registerDevice(db, input, uid, source, isProven) };
  if (!isProven) throw mustSign();
  const [moved] = await db
    .update(devices)
    .set({
      identity: { mac: input.identity.mac.toLowerCase() },
      info: input.info,
      online: true,
      remoteAddr: source,
      keyProvenAt: sql`coalesce(${devices.keyProvenAt}, now())`,
    })
    .where(eq(devices.uid, keyOwner.uid))
    .returning();
  await db.update(devicePresence).set({ lastSeen: sql`now()` }).where(eq(devicePresence.uid, keyOwner.uid));
  if (moved) {
    const patch = { identity: moved.identity, info: moved.info, remote_addr: moved.remoteAddr };
    await publishEvents(db, [{ tenantId: moved.tenantId, type: "device.updated", uid: moved.uid, patch }]);
  }
  keyOwners.set(uid, keyOwner.uid);
  return keyOwner;
}

/** What an agent's call is answered: its device, a device token, and its namespace's name. */
export type DeviceAuthentication = { uid: string; name: string; token: string; namespace: string };

/**
 * An agent's call, every 30 seconds: the first registers the device (pending), every call is a
 * heartbeat (last_seen, online, remote address, info, the sessions it lists). Answers the
 * device's uid, a device token, its name and its namespace's name. A device token costs the
 * device's private key (docs/device-identity.md): only a proven call acts for a device beyond
 * pending, unless its namespace allows unsigned agents and its agent never signed. A steady
 * heartbeat (lib/services/heartbeats.ts) with its namespace and token in memory is answered
 * without waiting: no promise, each of which costs the hooks of Next.js's AsyncLocalStorage.
 */
export function authenticateDevice(
  db: Db,
  input: AuthDeviceInput,
  source: string,
): DeviceAuthentication | Promise<DeviceAuthentication> {
  const bodyUid = deviceUidOf(input);
  const isProven = isProvenCall(input, bodyUid);
  const uid = (isProven && keyOwners.get(bodyUid)) || bodyUid;
  const tenantId = input.tenant_id;
  const beat = { uid, tenantId, remoteAddr: source, info: input.info, sessions: input.sessions, proven: isProven };
  const recorded = heartbeatWriter(db).record(beat);
  if (typeof recorded === "string") {
    const namespace = recentNamespaceName(tenantId);
    const token = recentDeviceToken(uid);
    if (namespace !== undefined && token !== undefined) return { uid, name: recorded, token, namespace };
  }
  return answerRecorded(db, input, { bodyUid, uid, source, isProven }, recorded);
}

/** The rest of authenticateDevice, for a call whose heartbeat or answer needs the database. */
async function answerRecorded(
  db: Db,
  input: AuthDeviceInput,
  call: { bodyUid: string; uid: string; source: string; isProven: boolean },
  recorded: string | Promise<string | undefined>,
): Promise<DeviceAuthentication> {
  const name = await recorded;
  const device =
    name === undefined
      ? await identifyDevice(db, input, call.bodyUid, call.source, call.isProven)
      : { uid: call.uid, name };
  const namespace = recentNamespaceName(input.tenant_id) ?? (await readNamespaceName(db, input.tenant_id));
  if (namespace === undefined) throw notFound("namespace");
  const token = recentDeviceToken(device.uid) ?? (await signedDeviceToken(device.uid, input.tenant_id));
  return { uid: device.uid, name: device.name, token, namespace };
}

/**
 * The agent says it is going away (`caller`: a device may only mark itself offline), or the
 * server's own tools saw its tunnel close (`caller` null).
 */
export async function markDeviceOffline(db: Executor, uid: string, caller: DeviceCaller | null) {
  if (caller && caller.uid !== uid) throw forbidden("a device can only mark itself offline");
  const where = caller ? and(eq(devices.uid, uid), eq(devices.tenantId, caller.tenantId)) : eq(devices.uid, uid);
  const offline = await takeOffline(db, where, caller ? "the agent said it is stopping" : "tunnel closed");
  if (offline.length === 0) throw notFound("device");
}

/** Devices that missed their heartbeats go offline; runs on a timer, across namespaces. */
export async function unscopedMarkSilentDevicesOffline(db: Executor, afterSeconds: number): Promise<number> {
  const updated = await takeOffline(
    db,
    and(eq(devices.online, true), sql`${devicePresence.lastSeen} < now() - make_interval(secs => ${afterSeconds})`),
    `no heartbeat for ${afterSeconds} s`,
  );
  return updated.length;
}
