import { and, asc, type Column, count, desc, eq, inArray, ne, type SQL, sql } from "drizzle-orm";
import { deviceCounts } from "@/models/device-counts";
import { type DeviceRow, deviceColumns, devicePresence, presenceOfDevice } from "@/models/device-presence";
import { type DeviceStatus, devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import type { Scope } from "../auth/credentials";
import { getConfig } from "../config";
import { type Executor, isEmbedded, type Tx } from "../db";
import { countRows } from "../db/paging";
import { ApiError, CodedError, conflict, isUniqueViolation, notFound } from "../errors";
import { processEvent } from "../process-state";
import { paged } from "../results";
import { offsetOf, type Pagination } from "../schemas/common";
import type { DeviceSortField, StatusWord } from "../schemas/devices";
import type { FilterItem } from "../schemas/list-filter";
import { auditChange, audited } from "./audit";
import { describeDevice, namespaceState } from "./device-view";
import { type EventType, publishEvents } from "./events";
import { type FilterField, filterToSql } from "./list-filter";
import { type DeviceLimit, deviceLimit } from "./plan-limit";

/** The only names a filter may use (API.md): each maps to a column or expression, never to SQL text. */
/** The properties a device-list filter may name. */
export const deviceFilterFields: Record<string, FilterField> = {
  name: { column: devices.name, type: "text" },
  uid: { column: devices.uid, type: "text" },
  online: { column: devices.online, type: "boolean" },
  tags: { column: devices.tags, type: "tags" },
  status: { column: devices.status, type: "text" },
  last_seen: { column: devicePresence.lastSeen, type: "date" },
  created_at: { column: devices.createdAt, type: "date" },
  "info.id": { column: sql`${devices.info}->>'id'`, type: "text" },
  "info.pretty_name": { column: sql`${devices.info}->>'pretty_name'`, type: "text" },
  "info.version": { column: sql`${devices.info}->>'version'`, type: "text" },
  "info.arch": { column: sql`${devices.info}->>'arch'`, type: "text" },
  "info.platform": { column: sql`${devices.info}->>'platform'`, type: "text" },
};

const sortColumns = {
  last_seen: devicePresence.lastSeen,
  created_at: devices.createdAt,
  status_update_at: devices.statusUpdateAt,
  name: devices.name,
  uid: devices.uid,
  status: devices.status,
  online: devices.online,
} satisfies Record<DeviceSortField, Column>;

const statusOf: Record<StatusWord, DeviceStatus> = {
  accept: "accepted",
  reject: "rejected",
  pending: "pending",
  unused: "unused",
};

/** Tells the namespace's live streams what changed on the device (awaited: the answer follows its event). */
const announce = (db: Executor, row: DeviceRow, type: EventType, patch: Record<string, unknown>) =>
  publishEvents(db, [{ tenantId: row.tenantId, type, uid: row.uid, patch }]);

const statusPatch = (row: DeviceRow) => ({ status: row.status, status_update_at: row.statusUpdateAt });

const ofDevice = (scope: Scope, uid: string) => and(eq(devices.uid, uid), eq(devices.tenantId, scope.tenantId));

async function view(db: Executor, scope: Scope, row: DeviceRow) {
  const namespace = await namespaceState(db, scope.tenantId);
  return describeDevice(row, namespace.name, namespace.isFull);
}

export type ListDevicesQuery = Pagination & {
  filter?: FilterItem[];
  status?: DeviceStatus;
  sort_by: DeviceSortField;
  order_by: "asc" | "desc";
};

/**
 * The namespace's devices in a status, or all of them: what the triggers on `devices` keep in
 * `device_counts` (models/device-counts.ts), read without counting the namespace's rows.
 */
async function countedDevices(db: Executor, tenantId: string, status?: DeviceStatus) {
  const [row] = await db
    .select({ total: sql<number>`coalesce(sum(${deviceCounts.count}), 0)::int` })
    .from(deviceCounts)
    .where(and(eq(deviceCounts.tenantId, tenantId), status ? eq(deviceCounts.status, status) : undefined));
  return row?.total ?? 0;
}

/** The namespace's devices; `only` narrows them further (the containers list: lib/services/containers.ts). */
export async function listDevices(db: Executor, scope: Scope, query: ListDevicesQuery, only?: SQL) {
  const where = and(
    eq(devices.tenantId, scope.tenantId),
    // The same namespace named on the presence rows too: the default order reads them through
    // their index on (tenant_id, last_seen, uid).
    eq(devicePresence.tenantId, scope.tenantId),
    only,
    query.status ? eq(devices.status, query.status) : undefined,
    filterToSql(query.filter, deviceFilterFields),
  );
  const direction = query.order_by === "asc" ? asc : desc;
  // The uid breaks ties, so pages never overlap.
  const order = [direction(sortColumns[query.sort_by]), direction(devices.uid)];
  const matching = (tx: Executor) =>
    tx.select({ uid: devices.uid }).from(devices).innerJoin(devicePresence, presenceOfDevice).where(where);
  // The page's uids first, then their rows: sorted by a column no index covers (any but last_seen,
  // the default), the sort goes through all the namespace's rows, and it costs less carrying the
  // uid and the sort column than whole rows (docs/performance.md, device list).
  const page = (tx: Executor) =>
    tx
      .select(deviceColumns)
      .from(devices)
      .innerJoin(devicePresence, presenceOfDevice)
      .where(
        inArray(
          devices.uid,
          matching(tx)
            .orderBy(...order)
            .limit(query.per_page)
            .offset(offsetOf(query)),
        ),
      )
      .orderBy(...order);
  const isCounted = !only && !query.filter?.length;
  const countAll = (tx: Executor) =>
    isCounted ? countedDevices(tx, scope.tenantId, query.status) : countRows(tx, { from: matching(tx).as("matching") });
  // Asked together: the embedded database gets them in one go, not each after the answer to the
  // last, which under load waits for the event loop (docs/performance.md, reconnect storm).
  const listed = (tx: Executor) => Promise.all([page(tx), countAll(tx)]);
  const [[rows, total], namespace] = await Promise.all([
    // PostgreSQL would share that scan with parallel workers, which on a machine whose cores the
    // server already uses took twice as long as one process alone (docs/performance.md, device
    // list). The embedded database starts with none (lib/db), so there no transaction is needed.
    isEmbedded(db)
      ? listed(db)
      : db.transaction(async (tx) => {
          await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
          return listed(tx);
        }),
    namespaceState(db, scope.tenantId),
  ]);
  return paged(
    rows.map((row) => describeDevice(row, namespace.name, namespace.isFull)),
    total,
  );
}

/** A device of the caller's namespace; any other uid, another tenant's included, is a 404. */
async function findDevice(db: Executor, scope: Scope, uid: string) {
  const [row] = await db
    .select(deviceColumns)
    .from(devices)
    .innerJoin(devicePresence, presenceOfDevice)
    .where(ofDevice(scope, uid));
  if (!row) throw notFound("device");
  return row;
}

export async function getDevice(db: Executor, scope: Scope, uid: string) {
  return view(db, scope, await findDevice(db, scope, uid));
}

/**
 * Makes a change to one device and records it with the device's name in the audit trail, in
 * one transaction; `details` are what the change set.
 */
function auditedDeviceChange<Row extends { uid: string; name: string }>(
  db: Executor,
  scope: Scope,
  action: string,
  details: Record<string, unknown>,
  change: (tx: Tx) => Promise<Row>,
) {
  return audited(db, scope, action, change, (row) => ({
    target: { type: "device", id: row.uid },
    details: { name: row.name, ...details },
  }));
}

export async function updateDevice(
  db: Executor,
  scope: Scope,
  uid: string,
  input: { name?: string; public_url?: boolean },
) {
  if (input.name === undefined && input.public_url === undefined) return getDevice(db, scope, uid);
  const row = await auditedDeviceChange(db, scope, "device.update", input, async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({ name: input.name, publicUrl: input.public_url })
      .from(devicePresence)
      .where(and(ofDevice(scope, uid), presenceOfDevice))
      .returning(deviceColumns)
      .catch((error: unknown) => {
        if (isUniqueViolation(error, "devices_tenant_name_key")) {
          throw conflict("a device with this name already exists in the namespace");
        }
        throw error;
      });
    if (!updated) throw notFound("device");
    return updated;
  });
  await announce(db, row, "device.updated", {
    ...(input.name === undefined ? {} : { name: row.name }),
    ...(input.public_url === undefined ? {} : { public_url: row.publicUrl }),
  });
  return view(db, scope, row);
}

function deviceLimitReached({ limit, isFreePlan }: DeviceLimit) {
  const message = `the namespace has reached its limit of ${limit} accepted devices`;
  if (isFreePlan)
    return new CodedError(402, "device_limit_reached", `${message} on the free plan: subscribe to add more`);
  // The cloud edition sells more devices (402 Payment Required); the community edition just refuses.
  return getConfig().EDITION === "cloud"
    ? new CodedError(402, "device_limit_reached", message)
    : new ApiError(403, message);
}

/**
 * Accepts a device unless the namespace already has as many accepted devices as its limit
 * (`max_devices`, or the free plan's: plan-limit.ts). Accepts in one namespace queue on its row
 * (FOR NO KEY UPDATE, which agents inserting devices do not wait for; billing's changes of plan
 * take the same lock), so concurrent accepts each count the others' committed results and never
 * pass the cap.
 */
export async function acceptDevice(db: Executor, scope: Scope, uid: string) {
  const row = await db.transaction(async (tx) => {
    const [namespace] = await tx
      .select({ maxDevices: namespaces.maxDevices })
      .from(namespaces)
      .where(eq(namespaces.tenantId, scope.tenantId))
      .for("no key update");
    const device = await findDevice(tx, scope, uid);
    const limit = namespace && (await deviceLimit(tx, scope.tenantId, namespace.maxDevices));
    if (limit && limit.limit >= 0 && device.status !== "accepted") {
      const [accepted] = await tx
        .select({ count: count() })
        .from(devices)
        .where(and(eq(devices.tenantId, scope.tenantId), eq(devices.status, "accepted"), ne(devices.uid, uid)));
      if ((accepted?.count ?? 0) >= limit.limit) throw deviceLimitReached(limit);
    }
    const [updated] = await tx
      .update(devices)
      .set({ status: "accepted", statusUpdateAt: sql`now()` })
      .from(devicePresence)
      .where(and(ofDevice(scope, uid), presenceOfDevice))
      .returning(deviceColumns);
    if (!updated) throw notFound("device");
    await auditChange(
      tx,
      scope,
      "device.accept",
      { type: "device", id: uid },
      { name: updated.name, from: device.status },
    );
    return updated;
  });
  await announce(db, row, "device.status", statusPatch(row));
  return view(db, scope, row);
}

/**
 * A device stopped being accepted (another status, or deleted): the tunnel endpoint subscribes
 * with `deviceRevoked.on` to drop its tunnel at once.
 */
export const deviceRevoked = processEvent<string>("device revoked");

/** `PATCH /api/devices/{uid}/{status}`: accept goes through the device limit, the others never add to it. */
export async function setDeviceStatus(db: Executor, scope: Scope, uid: string, word: StatusWord) {
  const status = statusOf[word];
  if (status === "accepted") return acceptDevice(db, scope, uid);
  const row = await auditedDeviceChange(db, scope, `device.${word}`, { status }, async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({ status, statusUpdateAt: sql`now()` })
      .from(devicePresence)
      .where(and(ofDevice(scope, uid), presenceOfDevice))
      .returning(deviceColumns);
    if (!updated) throw notFound("device");
    return updated;
  });
  // A pending device keeps its tunnel, which carries no session until it is accepted.
  if (status !== "pending") deviceRevoked.emit(uid);
  await announce(db, row, "device.status", statusPatch(row));
  return view(db, scope, row);
}

export async function deleteDevice(db: Executor, scope: Scope, uid: string) {
  const row = await auditedDeviceChange(db, scope, "device.delete", {}, async (tx) => {
    const [deleted] = await tx.delete(devices).where(ofDevice(scope, uid)).returning();
    if (!deleted) throw notFound("device");
    return deleted;
  });
  deviceRevoked.emit(uid);
  await publishEvents(db, [{ tenantId: row.tenantId, type: "device.removed", uid, patch: {} }]);
}

const maxTagsPerDevice = 3;

/** Adds a tag in one conditional statement, so two concurrent adds cannot pass 3 tags. */
export async function addDeviceTag(db: Executor, scope: Scope, uid: string, tag: string) {
  const row = await changeTags(db, scope, uid, async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({ tags: sql`array_append(${devices.tags}, ${tag})` })
      .from(devicePresence)
      .where(
        and(
          ofDevice(scope, uid),
          sql`not (${tag} = any(${devices.tags}))`,
          sql`cardinality(${devices.tags}) < ${maxTagsPerDevice}`,
          presenceOfDevice,
        ),
      )
      .returning(deviceColumns);
    if (updated) return updated;
    const device = await findDevice(tx, scope, uid);
    if (device.tags.includes(tag)) throw conflict(`the device already has the tag '${tag}'`);
    throw conflict(`a device has at most ${maxTagsPerDevice} tags`);
  });
  return view(db, scope, row);
}

export async function setDeviceTags(db: Executor, scope: Scope, uid: string, tags: string[]) {
  const row = await changeTags(db, scope, uid, async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({ tags })
      .from(devicePresence)
      .where(and(ofDevice(scope, uid), presenceOfDevice))
      .returning(deviceColumns);
    if (!updated) throw notFound("device");
    return updated;
  });
  return view(db, scope, row);
}

export async function removeDeviceTag(db: Executor, scope: Scope, uid: string, tag: string) {
  const row = await changeTags(db, scope, uid, async (tx) => {
    const [updated] = await tx
      .update(devices)
      .set({ tags: sql`array_remove(${devices.tags}, ${tag})` })
      .from(devicePresence)
      .where(and(ofDevice(scope, uid), sql`${tag} = any(${devices.tags})`, presenceOfDevice))
      .returning(deviceColumns);
    if (updated) return updated;
    await findDevice(tx, scope, uid);
    throw notFound(`tag '${tag}' on the device`);
  });
  return view(db, scope, row);
}

/** A change of a device's tags: audited with the tags it leaves, then announced. */
async function changeTags(db: Executor, scope: Scope, uid: string, change: (tx: Tx) => Promise<DeviceRow>) {
  const row = await audited(db, scope, "device.tags", change, (updated) => ({
    target: { type: "device", id: uid },
    details: { name: updated.name, tags: updated.tags },
  }));
  await announce(db, row, "device.updated", { tags: row.tags });
  return row;
}
