import { z } from "zod";
import { pagination } from "./common";

const instant = z.iso.datetime({
  offset: true,
  message: "expected an ISO 8601 date and time, e.g. 2026-01-31T12:00:00Z",
});

/** The audit trail's filters: exact actor, action (`device.` for every device action), target and outcome, a time range. */
export const auditFilters = z.object({
  actor: z.string().min(1).max(256).optional(),
  action: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]*)*$/, "expected an action such as device.accept, or device. for every device action")
    .max(64)
    .optional(),
  target: z.string().min(1).max(256).optional(),
  outcome: z.enum(["success", "failure"]).optional(),
  from: instant.optional(),
  to: instant.optional(),
});

export const auditQuery = pagination.extend(auditFilters.shape);
export type AuditQuery = z.infer<typeof auditQuery>;

export const auditEntry = z.object({
  id: z.number(),
  time: z.string(),
  actor: z.object({ type: z.string(), id: z.string(), name: z.string() }),
  source: z.string(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  outcome: z.enum(["success", "failure"]),
  details: z.record(z.string(), z.unknown()),
  hash: z.string(),
});
