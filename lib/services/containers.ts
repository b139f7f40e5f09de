import type { Scope } from "../auth/credentials";
import { type Page, paged } from "../results";
import { deviceFilterFields, type ListDevicesQuery } from "./devices";
import { filterToSql } from "./list-filter";

/**
 * Containers are the devices of a namespace's container-engine connectors; no connector can
 * be added yet, so every namespace has none. The list answers as the device list does (the same
 * query, an array and `X-Total-Count`), as ShellHub's web UI reads it.
 */
export function listContainers(_scope: Scope, query: ListDevicesQuery): Page<never> {
  // The filter is checked as the device list checks it: what is refused there is refused here.
  filterToSql(query.filter, deviceFilterFields);
  return paged([], 0);
}
