import { createHash } from "node:crypto";
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { type ConnectorRow, connectorContainers, connectors } from "@/models/connectors";
import { type DeviceInfo, devices } from "@/models/devices";
import type { Executor } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { announceRegistration } from "./agent";
import { engineTarget, unscopedSetContainersOffline } from "./connectors";
import {
  describeEngineFailure,
  type EngineContainer,
  type EngineInfo,
  engineClient,
  readEngineContainers,
  readEngineInfo,
} from "./container-engine";
import { publishEvents } from "./events";
import { announceOnline, type SeenDevice, seenNow, takeOffline } from "./presence";

/**
 * The device uid of a container: stable for the connector and the container's id. The NUL
 * separators (which no API body may carry) keep it apart from any uid an agent's fields make.
 */
export const containerDeviceUid = (connectorUid: string, containerId: string) =>
  createHash("sha256").update(`container\0${connectorUid}\0${containerId}`).digest("hex");

/** A container's name as a device name: a lower-case hostname label. */
export function containerDeviceName(container: EngineContainer): string {
  const name = (container.Names?.[0] ?? "")
    .replace(/^\//, "")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 54)
    .replace(/-+$/, "");
  return name || `container-${container.Id.slice(0, 12)}`;
}

const deviceInfoOf = (container: EngineContainer, engine: EngineInfo): DeviceInfo => ({
  id: "docker",
  pretty_name: container.Image,
  version: engine.ServerVersion ?? "",
  arch: engine.Architecture ?? "",
  platform: "docker",
});

/** Adds a running container as a pending device of the connector's namespace, under a free name. */
async function addContainerDevice(db: Executor, connector: ConnectorRow, container: EngineContainer, info: DeviceInfo) {
  const uid = containerDeviceUid(connector.uid, container.Id);
  const base = containerDeviceName(container);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = attempt === 1 ? base : `${base}-${attempt}`;
    const [inserted] = await db
      .insert(devices)
      .values({
        uid,
        tenantId: connector.tenantId,
        name,
        identity: { mac: "" },
        info,
        // No agent and no key: the gateway reaches the container through its engine.
        publicKey: "",
        keyDigest: "",
        online: true,
        remoteAddr: "",
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      await db
        .insert(connectorContainers)
        .values({ deviceUid: uid, connectorUid: connector.uid, containerId: container.Id, image: container.Image });
      await announceRegistration(db, inserted, "found by its connector");
      return;
    }
  }
  log.warn("no free device name for a container", { connector: connector.uid, container: container.Id });
}

/**
 * Makes the connector's devices what its engine says: a running container is an online device
 * (added pending when new), a stopped one offline, a removed one deleted.
 */
async function syncContainers(
  db: Executor,
  connector: ConnectorRow,
  engine: EngineInfo,
  containers: EngineContainer[],
) {
  const known = await db
    .select({ uid: connectorContainers.deviceUid, containerId: connectorContainers.containerId })
    .from(connectorContainers)
    .where(eq(connectorContainers.connectorUid, connector.uid));
  const knownIds = new Set(known.map((row) => row.containerId));
  const running = containers.filter((container) => container.State === "running");
  for (const container of running) {
    if (!knownIds.has(container.Id))
      await addContainerDevice(db, connector, container, deviceInfoOf(container, engine));
  }
  const runningUids = running.map((container) => containerDeviceUid(connector.uid, container.Id));
  const presentIds = new Set(containers.map((container) => container.Id));
  const gone = known.filter((row) => !presentIds.has(row.containerId)).map((row) => row.uid);
  const stopped = known.map((row) => row.uid).filter((uid) => !runningUids.includes(uid) && !gone.includes(uid));

  if (runningUids.length > 0) {
    // Running containers are seen now, so the silent-device timer leaves them online; those that
    // came online are announced.
    const result = await db.execute(sql`
      with ${seenNow(runningUids)}
      select uid, tenant_id, last_seen from came_online`);
    const rows = (result as unknown as { rows: SeenDevice[] }).rows;
    await announceOnline(db, rows, "container running");
  }
  if (stopped.length > 0) {
    await takeOffline(db, and(inArray(devices.uid, stopped), eq(devices.online, true)), "container stopped");
  }
  if (gone.length > 0) {
    const removed = await db.delete(devices).where(inArray(devices.uid, gone)).returning({ uid: devices.uid });
    await publishEvents(
      db,
      removed.map((row) => ({
        tenantId: connector.tenantId,
        type: "device.removed" as const,
        uid: row.uid,
        patch: {},
      })),
    );
  }
}

const maxBackoffSeconds = 300;

/**
 * Talks to one connector's engine: reads its info and containers, syncs the devices, and records
 * the status. A failure records its plain reason, takes the containers offline and waits longer
 * before each next try (doubling up to 5 minutes; kept in the row, so a restart keeps it).
 */
export async function unscopedSyncConnector(db: Executor, connector: ConnectorRow, intervalSeconds: number) {
  const target = engineTarget(connector);
  try {
    const engine = engineClient(target);
    const info = await readEngineInfo(engine);
    const containers = await readEngineContainers(engine);
    // One transaction, so no reader sees the engine's containers beside a status that is not yet "connected".
    await db.transaction(async (tx) => {
      await syncContainers(tx, connector, info, containers);
      await tx
        .update(connectors)
        .set({
          state: "connected",
          message: "",
          failures: 0,
          nextAttemptAt: sql`now() + make_interval(secs => ${intervalSeconds})`,
        })
        .where(and(eq(connectors.uid, connector.uid), eq(connectors.enable, true)));
    });
  } catch (error) {
    const { state, message } = describeEngineFailure(error, target.tls !== undefined);
    const wait = Math.min(maxBackoffSeconds, intervalSeconds * 2 ** Math.min(connector.failures, 16));
    await unscopedSetContainersOffline(db, connector.uid);
    await db
      .update(connectors)
      .set({
        state,
        message,
        failures: sql`${connectors.failures} + 1`,
        nextAttemptAt: sql`now() + make_interval(secs => ${wait})`,
      })
      .where(and(eq(connectors.uid, connector.uid), eq(connectors.enable, true)));
    if (connector.state !== state || connector.message !== message) {
      log.info("a connector's engine is out of reach", { connector: connector.uid, state, message });
    }
  }
}

/**
 * Takes the lease of the enabled connectors that are due and free (no lease, an expired one, or
 * this instance's), so that with several instances on one database each connector is synced by
 * one of them; the lease outlives a few rounds, so the holder keeps it while it lives.
 */
export async function unscopedClaimDueConnectors(db: Executor, instance: string, leaseSeconds: number) {
  const due = db
    .select({ uid: connectors.uid })
    .from(connectors)
    .where(
      and(
        eq(connectors.enable, true),
        lte(connectors.nextAttemptAt, sql`now()`),
        sql`(${connectors.leaseUntil} is null or ${connectors.leaseUntil} < now() or ${connectors.leaseInstance} = ${instance})`,
      ),
    )
    .limit(100)
    .for("update", { skipLocked: true });
  return db
    .update(connectors)
    .set({ leaseInstance: instance, leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where(inArray(connectors.uid, due))
    .returning();
}

/** One round of the status worker: every due connector this instance holds, synced in turn. */
export async function unscopedSyncDueConnectors(db: Executor, instance: string, intervalSeconds: number) {
  const claimed = await unscopedClaimDueConnectors(db, instance, intervalSeconds * 3 + 30);
  for (const connector of claimed) {
    await unscopedSyncConnector(db, connector, intervalSeconds).catch((error: unknown) =>
      log.warn("syncing a connector failed", { connector: connector.uid, error: errorText(error) }),
    );
  }
  return claimed.length;
}
