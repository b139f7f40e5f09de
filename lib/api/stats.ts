import { defineOperation, type Operation } from "../http/operation";
import { statsObject } from "../schemas/stats";

export const getStats = defineOperation({
  id: "getStats",
  method: "GET",
  path: "/api/stats",
  tag: "stats",
  summary: "Device counts by status and active sessions of the namespace",
  access: { kind: "tenant", permission: "stats.read" },
  response: statsObject,
});

export const statsOperations: Operation[] = [getStats];
