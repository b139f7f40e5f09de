import { defineOperation } from "../http/operation";
import { containerObject } from "../schemas/connectors";
import { listDevicesQuery } from "../schemas/devices";

const tag = "containers";

export const listContainers = defineOperation({
  id: "listContainers",
  method: "GET",
  path: "/api/containers",
  tag,
  summary: "The namespace's containers (devices of its connectors), filtered and sorted as devices",
  access: { kind: "tenant", permission: "device.read" },
  query: listDevicesQuery,
  response: containerObject,
  isList: true,
  isCloudOnly: true,
});

export const containerOperations = [listContainers];
