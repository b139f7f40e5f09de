import { inArray } from "drizzle-orm";
import { connectorContainers } from "@/models/connectors";
import { devices } from "@/models/devices";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { paged } from "../results";
import { type ListDevicesQuery, listDevices } from "./devices";

/**
 * The namespace's containers: the devices that are containers of its connectors' engines. The
 * list answers as the device list does (the same query, an array and `X-Total-Count`), as
 * ShellHub's web UI reads it, each device with the image and the connector it comes from.
 */
export async function listContainers(db: Executor, scope: Scope, query: ListDevicesQuery) {
  const page = await listDevices(
    db,
    scope,
    query,
    inArray(devices.uid, db.select({ uid: connectorContainers.deviceUid }).from(connectorContainers)),
  );
  const uids = page.items.map((device) => device.uid);
  const rows =
    uids.length === 0
      ? []
      : await db.select().from(connectorContainers).where(inArray(connectorContainers.deviceUid, uids));
  const origin = new Map(rows.map((row) => [row.deviceUid, row]));
  return paged(
    page.items.map((device) => {
      const row = origin.get(device.uid);
      return {
        ...device,
        container: { connector_uid: row?.connectorUid ?? "", id: row?.containerId ?? "", image: row?.image ?? "" },
      };
    }),
    page.total,
  );
}
