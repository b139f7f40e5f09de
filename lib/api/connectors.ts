import { defineOperation } from "../http/operation";
import {
  connectorInfoObject,
  connectorObject,
  connectorParams,
  createConnectorBody,
  listConnectorsQuery,
  updateConnectorBody,
} from "../schemas/connectors";

const tag = "connectors";
const read = { kind: "tenant", permission: "connector.read" } as const;
const manage = { kind: "tenant", permission: "connector.manage" } as const;
const cloud = { isCloudOnly: true } as const;

export const createConnector = defineOperation({
  id: "createConnector",
  method: "POST",
  path: "/api/connector",
  tag,
  summary: "Connect the namespace to a container engine (Docker Engine API, HTTP or HTTPS)",
  access: manage,
  body: createConnectorBody,
  response: connectorObject,
  ...cloud,
});

export const listConnectors = defineOperation({
  id: "listConnectors",
  method: "GET",
  path: "/api/connector",
  tag,
  summary: "The namespace's connectors, oldest first",
  access: read,
  query: listConnectorsQuery,
  response: connectorObject,
  isList: true,
  ...cloud,
});

export const getConnector = defineOperation({
  id: "getConnector",
  method: "GET",
  path: "/api/connector/{uid}",
  tag,
  summary: "Get a connector",
  access: read,
  params: connectorParams,
  response: connectorObject,
  errors: { 404: "no such connector" },
  ...cloud,
});

export const updateConnector = defineOperation({
  id: "updateConnector",
  method: "PATCH",
  path: "/api/connector/{uid}",
  tag,
  summary: "Change a connector's settings (fields left out keep their value)",
  access: manage,
  params: connectorParams,
  body: updateConnectorBody,
  response: connectorObject,
  errors: { 404: "no such connector" },
  ...cloud,
});

export const deleteConnector = defineOperation({
  id: "deleteConnector",
  method: "DELETE",
  path: "/api/connector/{uid}",
  tag,
  summary: "Delete a connector and the devices that are its containers",
  access: manage,
  params: connectorParams,
  errors: { 404: "no such connector" },
  ...cloud,
});

export const getConnectorInfo = defineOperation({
  id: "getConnectorInfo",
  method: "GET",
  path: "/api/connector/{uid}/info",
  tag,
  summary: "The container engine's own info, asked now",
  access: read,
  params: connectorParams,
  response: connectorInfoObject,
  errors: { 404: "no such connector", 502: "the engine could not be reached or answered wrongly" },
  ...cloud,
});

export const connectorOperations = [
  createConnector,
  listConnectors,
  getConnector,
  updateConnector,
  deleteConnector,
  getConnectorInfo,
];
