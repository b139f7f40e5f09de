import { defineOperation, type Operation } from "../http/operation";
import {
  deviceObject,
  deviceStatusParams,
  deviceTagBody,
  deviceTagParams,
  deviceTagsBody,
  deviceUidParams,
  listDevicesQuery,
  updateDeviceBody,
} from "../schemas/devices";
import { deviceDiagnostics } from "../schemas/diagnostics";

const tag = "devices";
const noDevice = { 404: "no such device in the namespace" };
const limitReached = {
  402: "the namespace has max_devices accepted devices (cloud edition)",
  403: "the role may not do this, or the namespace has max_devices accepted devices (community edition)",
};

export const listDevices = defineOperation({
  id: "listDevices",
  method: "GET",
  path: "/api/devices",
  tag,
  summary: "The namespace's devices, filtered and sorted",
  access: { kind: "tenant", permission: "device.read" },
  query: listDevicesQuery,
  response: deviceObject,
  isList: true,
});

export const getDevice = defineOperation({
  id: "getDevice",
  method: "GET",
  path: "/api/devices/{uid}",
  tag,
  summary: "Get a device",
  access: { kind: "tenant", permission: "device.read" },
  params: deviceUidParams,
  response: deviceObject,
  errors: noDevice,
});

export const updateDevice = defineOperation({
  id: "updateDevice",
  method: "PUT",
  path: "/api/devices/{uid}",
  tag,
  summary: "Rename a device or set its public URL flag",
  access: { kind: "tenant", permission: "device.update" },
  params: deviceUidParams,
  body: updateDeviceBody,
  response: deviceObject,
  errors: { ...noDevice, 409: "name taken in the namespace" },
});

export const deleteDevice = defineOperation({
  id: "deleteDevice",
  method: "DELETE",
  path: "/api/devices/{uid}",
  tag,
  summary: "Delete a device with its sessions",
  access: { kind: "tenant", permission: "device.delete" },
  params: deviceUidParams,
  errors: noDevice,
});

export const acceptDevice = defineOperation({
  id: "acceptDevice",
  method: "PATCH",
  path: "/api/devices/{uid}/accept",
  tag,
  summary: "Accept a device, within the namespace's max_devices",
  access: { kind: "tenant", permission: "device.status" },
  params: deviceUidParams,
  response: deviceObject,
  errors: { ...noDevice, ...limitReached },
});

export const updateDeviceStatus = defineOperation({
  id: "updateDeviceStatus",
  method: "PATCH",
  path: "/api/devices/{uid}/{status}",
  tag,
  summary: "Set a device's status: accept, reject, pending or unused",
  access: { kind: "tenant", permission: "device.status" },
  params: deviceStatusParams,
  response: deviceObject,
  errors: { ...noDevice, ...limitReached },
});

export const createDeviceTag = defineOperation({
  id: "createDeviceTag",
  method: "POST",
  path: "/api/devices/{uid}/tags",
  tag,
  summary: "Add a tag to a device (at most 3)",
  access: { kind: "tenant", permission: "device.tag" },
  params: deviceUidParams,
  body: deviceTagBody,
  response: deviceObject,
  errors: { ...noDevice, 409: "the device has this tag, or 3 tags already" },
});

export const updateDeviceTags = defineOperation({
  id: "updateDeviceTags",
  method: "PUT",
  path: "/api/devices/{uid}/tags",
  tag,
  summary: "Replace a device's tags (1 to 3)",
  access: { kind: "tenant", permission: "device.tag" },
  params: deviceUidParams,
  body: deviceTagsBody,
  response: deviceObject,
  errors: noDevice,
});

export const deleteDeviceTag = defineOperation({
  id: "deleteDeviceTag",
  method: "DELETE",
  path: "/api/devices/{uid}/tags/{tag}",
  tag,
  summary: "Remove a tag from a device",
  access: { kind: "tenant", permission: "device.tag" },
  params: deviceTagParams,
  response: deviceObject,
  errors: { 404: "no such device, or the device has no such tag" },
});

export const getDeviceDiagnostics = defineOperation({
  id: "getDeviceDiagnostics",
  method: "GET",
  path: "/api/devices/{uid}/diagnostics",
  tag,
  summary: "Why a device may be out of reach: its transitions with their cause, its refused logins with their reason",
  access: { kind: "tenant", permission: "device.read" },
  params: deviceUidParams,
  response: deviceDiagnostics,
  errors: noDevice,
});

export const deviceOperations: Operation[] = [
  listDevices,
  getDevice,
  getDeviceDiagnostics,
  updateDevice,
  deleteDevice,
  acceptDevice,
  updateDeviceStatus,
  createDeviceTag,
  updateDeviceTags,
  deleteDeviceTag,
];
