import { defineOperation, type Operation } from "../http/operation";
import { auditEntry, auditFilters, auditQuery } from "../schemas/audit";

const tag = "audit";

export const listAudit = defineOperation({
  id: "listAudit",
  method: "GET",
  path: "/api/audit",
  tag,
  summary:
    "The namespace's audit trail, newest first: every authentication decision and every change, with actor, source address, action, target, outcome and details; filters by actor (name or id), action (`device.` for every device action), target id, outcome and time range",
  access: { kind: "tenant", permission: "audit.view" },
  query: auditQuery,
  response: auditEntry,
  isList: true,
});

export const exportAudit = defineOperation({
  id: "exportAudit",
  method: "GET",
  path: "/api/audit/export",
  tag,
  summary:
    "The filtered audit trail as JSON lines (one entry per line, oldest first, the list's fields with each row's chained hash), streamed",
  access: { kind: "tenant", permission: "audit.view" },
  query: auditFilters,
  fileType: "application/x-ndjson",
});

export const auditOperations: Operation[] = [listAudit, exportAudit];
