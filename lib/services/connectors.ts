import { createPrivateKey, X509Certificate } from "node:crypto";
import { and, asc, count, eq, inArray } from "drizzle-orm";
import { type ConnectorRow, type ConnectorTls, connectorContainers, connectors } from "@/models/connectors";
import { devices } from "@/models/devices";
import type { Scope } from "../auth/credentials";
import { openSecret, sealSecret } from "../auth/secret-box";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { ApiError, type FieldIssue, notFound, ValidationError } from "../errors";
import { paged } from "../results";
import type { CreateConnectorBody, UpdateConnectorBody } from "../schemas/connectors";
import { auditChange, audited } from "./audit";
import {
  describeEngineFailure,
  type EngineTarget,
  type ExecOptions,
  engineClient,
  execInContainer,
  type RunningExec,
  readEngineInfo,
} from "./container-engine";
import { publishEvents } from "./events";
import { takeOffline } from "./presence";

/** The connector as the API answers it: the TLS key never leaves the server. */
function describe(row: ConnectorRow, containers: number) {
  return {
    uid: row.uid,
    tenant_id: row.tenantId,
    enable: row.enable,
    address: row.address,
    port: row.port,
    secure: row.secure,
    status: { State: row.state, Message: row.message },
    tls: row.tls ? { ca: row.tls.ca, cert: row.tls.cert } : null,
    containers,
  };
}

async function containerCounts(db: Executor, uids: string[]) {
  if (uids.length === 0) return new Map<string, number>();
  const rows = await db
    .select({ uid: connectorContainers.connectorUid, count: count() })
    .from(connectorContainers)
    .where(inArray(connectorContainers.connectorUid, uids))
    .groupBy(connectorContainers.connectorUid);
  return new Map(rows.map((row) => [row.uid, row.count]));
}

async function view(db: Executor, row: ConnectorRow) {
  return describe(row, (await containerCounts(db, [row.uid])).get(row.uid) ?? 0);
}

type TlsInput = { ca: string; cert: string; key: string };

/** Checks the PEM material as the TLS stack will read it, naming the field that does not parse. */
function assertTlsMaterial(tls: TlsInput) {
  const issues: FieldIssue[] = [];
  const parses = (read: () => unknown) => {
    try {
      read();
      return true;
    } catch {
      return false;
    }
  };
  if (!parses(() => new X509Certificate(tls.ca))) issues.push({ field: "tls.ca", message: "not a PEM certificate" });
  if (!parses(() => new X509Certificate(tls.cert)))
    issues.push({ field: "tls.cert", message: "not a PEM certificate" });
  if (!parses(() => createPrivateKey(tls.key))) {
    issues.push({ field: "tls.key", message: "not a PEM private key (unencrypted)" });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

/** The stored form of the material: the key sealed, bound to the connector's uid. */
const sealTls = (uid: string, tls: TlsInput): ConnectorTls => ({
  ca: tls.ca,
  cert: tls.cert,
  sealedKey: sealSecret(tls.key, `connector:${uid}`),
});

/** Where the server dials the connector's engine, with its TLS material in the clear (HTTPS only). */
export function engineTarget(row: ConnectorRow): EngineTarget {
  if (!row.secure) return { address: row.address, port: row.port };
  if (!row.tls) throw new Error("a secure connector without TLS material");
  return {
    address: row.address,
    port: row.port,
    tls: { ca: row.tls.ca, cert: row.tls.cert, key: openSecret(row.tls.sealedKey, `connector:${row.uid}`) },
  };
}

const secureNeedsTls = () =>
  new ValidationError([{ field: "tls", message: "a secure connector needs ca, cert and key" }]);

const ofConnector = (scope: Scope, uid: string) =>
  and(eq(connectors.tenantId, scope.tenantId), eq(connectors.uid, uid));

export async function createConnector(db: Executor, scope: Scope, input: CreateConnectorBody) {
  if (input.tls) assertTlsMaterial(input.tls);
  else if (input.secure) throw secureNeedsTls();
  const uid = crypto.randomUUID();
  const row = await audited(
    db,
    scope,
    "connector.create",
    (tx) => insertConnector(tx, scope, uid, input),
    (created) => auditOfConnector(created),
  );
  return describe(row, 0);
}

/** What the audit trail keeps of a connector: never its TLS material, only whether it has some. */
const auditOfConnector = (row: ConnectorRow) => ({
  target: { type: "connector", id: row.uid },
  details: { address: row.address, port: row.port, secure: row.secure, enable: row.enable, tls: row.tls !== null },
});

async function insertConnector(db: Executor, scope: Scope, uid: string, input: CreateConnectorBody) {
  const [row] = await db
    .insert(connectors)
    .values({
      uid,
      tenantId: scope.tenantId,
      enable: input.enable,
      address: input.address,
      port: input.port,
      secure: input.secure,
      tls: input.tls ? sealTls(uid, input.tls) : null,
      ...(input.enable ? {} : { state: "disconnected" as const, message: "disabled" }),
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

export async function listConnectors(
  db: Executor,
  scope: Scope,
  query: { page: number; per_page: number; enable?: boolean },
) {
  const where = and(
    eq(connectors.tenantId, scope.tenantId),
    query.enable === undefined ? undefined : eq(connectors.enable, query.enable),
  );
  const { rows, total } = await readPage(
    db,
    { from: connectors, where },
    db.select().from(connectors).where(where).orderBy(asc(connectors.createdAt), asc(connectors.uid)).$dynamic(),
    query,
  );
  const counts = await containerCounts(
    db,
    rows.map((row) => row.uid),
  );
  return paged(
    rows.map((row) => describe(row, counts.get(row.uid) ?? 0)),
    total,
  );
}

async function findConnector(db: Executor, scope: Scope, uid: string) {
  const [row] = await db.select().from(connectors).where(ofConnector(scope, uid));
  if (!row) throw notFound("connector");
  return row;
}

export async function getConnector(db: Executor, scope: Scope, uid: string) {
  return view(db, await findConnector(db, scope, uid));
}

/**
 * Changes what the body names. A change of where or how to reach the engine makes the status
 * worker try at once; disabling it says so in the status and its containers go offline.
 */
export async function updateConnector(db: Executor, scope: Scope, uid: string, input: UpdateConnectorBody) {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(connectors).where(ofConnector(scope, uid)).for("update");
    if (!current) throw notFound("connector");
    if (input.tls) assertTlsMaterial(input.tls);
    const tls = input.tls === undefined ? current.tls : input.tls && sealTls(uid, input.tls);
    const secure = input.secure ?? current.secure;
    if (secure && !tls) throw secureNeedsTls();
    const enable = input.enable ?? current.enable;
    const [row] = await tx
      .update(connectors)
      .set({
        enable,
        address: input.address ?? current.address,
        port: input.port ?? current.port,
        secure,
        tls,
        ...(enable
          ? { state: "pending" as const, message: "", failures: 0, nextAttemptAt: new Date() }
          : { state: "disconnected" as const, message: "disabled" }),
      })
      .where(ofConnector(scope, uid))
      .returning();
    if (!row) throw notFound("connector");
    if (!enable) await unscopedSetContainersOffline(tx, uid);
    const { target, details } = auditOfConnector(row);
    await auditChange(tx, scope, "connector.update", target, { ...details, tls_replaced: input.tls !== undefined });
    return view(tx, row);
  });
}

/** Deletes the connector and every device that is one of its containers. */
export async function deleteConnector(db: Executor, scope: Scope, uid: string) {
  const removed = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(connectors).where(ofConnector(scope, uid)).for("update");
    if (!row) throw notFound("connector");
    const removed = await tx
      .delete(devices)
      .where(
        inArray(
          devices.uid,
          tx
            .select({ uid: connectorContainers.deviceUid })
            .from(connectorContainers)
            .where(eq(connectorContainers.connectorUid, uid)),
        ),
      )
      .returning({ uid: devices.uid });
    await tx.delete(connectors).where(ofConnector(scope, uid));
    const { target, details } = auditOfConnector(row);
    await auditChange(tx, scope, "connector.delete", target, { ...details, devices_removed: removed.length });
    return removed;
  });
  // Announced once the deletion committed, as every change is.
  await publishEvents(
    db,
    removed.map((device) => ({
      tenantId: scope.tenantId,
      type: "device.removed" as const,
      uid: device.uid,
      patch: {},
    })),
  );
}

/** The engine's info, asked now; an engine out of reach or answering wrongly is a 502 saying why. */
export async function getConnectorInfo(db: Executor, scope: Scope, uid: string) {
  const row = await findConnector(db, scope, uid);
  const target = engineTarget(row);
  try {
    const info = await readEngineInfo(engineClient(target));
    return {
      ID: info.ID,
      Containers: info.Containers,
      ContainersRunning: info.ContainersRunning,
      ContainersPaused: info.ContainersPaused,
      ContainersStopped: info.ContainersStopped,
      Images: info.Images,
      Driver: info.Driver,
      DriverStatus: info.DriverStatus,
      Plugins: { Volume: info.Plugins.Volume, Network: info.Plugins.Network },
    };
  } catch (error) {
    throw new ApiError(
      502,
      `the container engine did not answer: ${describeEngineFailure(error, target.tls !== undefined).message}`,
    );
  }
}

/** Marks the connector's containers offline (it was disabled, or its engine is out of reach). */
export async function unscopedSetContainersOffline(db: Executor, connectorUid: string) {
  await takeOffline(
    db,
    and(
      eq(devices.online, true),
      inArray(
        devices.uid,
        db
          .select({ uid: connectorContainers.deviceUid })
          .from(connectorContainers)
          .where(eq(connectorContainers.connectorUid, connectorUid)),
      ),
    ),
    "the connector was disabled or its engine is out of reach",
  );
}

/** A device that is a container: where its engine is, and the container's id there. */
export type ContainerTarget = { target: EngineTarget; containerId: string };

/** The container a device is, when it is one; undefined for a device with an agent. */
export async function unscopedFindContainer(db: Executor, deviceUid: string): Promise<ContainerTarget | undefined> {
  const [row] = await db
    .select({ connector: connectors, containerId: connectorContainers.containerId })
    .from(connectorContainers)
    .innerJoin(connectors, eq(connectors.uid, connectorContainers.connectorUid))
    .where(eq(connectorContainers.deviceUid, deviceUid));
  return row && { target: engineTarget(row.connector), containerId: row.containerId };
}

/** Whether the device, a container, runs now (its connector reached the engine and saw it running). */
export async function unscopedIsDeviceOnline(db: Executor, deviceUid: string) {
  const [row] = await db.select({ online: devices.online }).from(devices).where(eq(devices.uid, deviceUid));
  return row?.online === true;
}

export type EngineContainerHandle = { exec: (options: ExecOptions) => Promise<RunningExec> };

/** Runs commands in the container through its engine. */
export const openContainerHandle = (container: ContainerTarget): EngineContainerHandle => ({
  exec: (options) => execInContainer(container.target, container.containerId, options),
});
