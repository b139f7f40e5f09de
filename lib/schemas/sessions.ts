import { z } from "zod";
import { hexUidShape } from "../protocol";
import { pagination, tenantId, timestamp } from "./common";
import { deviceObject, deviceUid, position } from "./devices";

export const sessionUid = z.string().regex(hexUidShape, "expected 64 lower-case hex characters");
export const sessionParams = z.object({ uid: sessionUid });

/** `true` or `false` in a query string. */
const queryFlag = z.enum(["true", "false"], { message: "expected true or false" }).transform((flag) => flag === "true");

/**
 * The list's page and, beyond ShellHub's parameters, filters the console uses: one device, live
 * or ended sessions, failed logins, recorded ones, one login name.
 */
export const listSessionsQuery = pagination.extend({
  device_uid: deviceUid.optional(),
  active: queryFlag.optional(),
  authenticated: queryFlag.optional(),
  recorded: queryFlag.optional(),
  username: z.string().min(1).max(255).optional(),
});
export type SessionListQuery = z.infer<typeof listSessionsQuery>;

export const setAuthenticatedBody = z.object({ authenticated: z.boolean() });

/** Closing names the session's device too, so a stale or guessed uid cannot close another device's session. */
export const closeSessionBody = z.object({ device: deviceUid });

/** What the gateway knows when a connection starts; the namespace comes from the device. */
export const startSessionBody = z.object({
  uid: sessionUid,
  device_uid: deviceUid,
  username: z.string().min(1).max(255),
  ip_address: z.union([z.ipv4(), z.ipv6()], { message: "expected an IP address" }),
  type: z.string().max(64).default(""),
  term: z.string().max(64).default(""),
});

const frameSize = z.number().int().min(0).max(10_000);

/** One frame of terminal output. A frame that fails this is a 422 (bad recorded data), not a 400. */
export const recordFrame = z.object({ uid: sessionUid, message: z.string(), width: frameSize, height: frameSize });
export type RecordFrame = z.infer<typeof recordFrame>;

/**
 * The record body as the route reads it: any JSON object (anything else is a 400). The frame in
 * it is checked by the service against `recordFrame`.
 */
export const recordBody = z
  .record(z.string(), z.unknown())
  .meta({ description: "A frame: {uid, message, width, height}; width and height are integers 0..10000." });

export const sessionObject = z.object({
  uid: z.string(),
  device_uid: z.string(),
  device: deviceObject,
  tenant_id: tenantId,
  username: z.string(),
  ip_address: z.string(),
  started_at: timestamp,
  last_seen: timestamp,
  active: z.boolean(),
  authenticated: z.boolean(),
  recorded: z.boolean(),
  type: z.string(),
  term: z.string(),
  /** Why the gateway refused or ended the connection; empty when it went well. */
  reason: z.string(),
  position: position.nullable(),
});

export const recordObject = z.object({
  uid: z.string(),
  message: z.string(),
  tenant_id: z.string(),
  time: timestamp,
  width: z.number().int(),
  height: z.number().int(),
});
