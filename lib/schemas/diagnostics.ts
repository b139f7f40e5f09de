import { z } from "zod";
import { deviceStatuses } from "@/models/enums";
import { timestamp } from "./common";

const sshLogin = z.object({ time: timestamp, login: z.string(), source: z.string() });

/** `GET /api/devices/{uid}/diagnostics`: why the device may be out of reach (docs/diagnostics.md). */
export const deviceDiagnostics = z.object({
  uid: z.string(),
  name: z.string(),
  status: z.enum(deviceStatuses),
  online: z.boolean(),
  last_seen: timestamp,
  agent_version: z.string(),
  clock_skew_ms: z
    .number()
    .int()
    .nullable()
    .describe(
      "The agent's clock minus the server's when its tunnel opened (milliseconds, network delay included); null without a tunnel or when the agent does not say its time",
    ),
  last_tunnel_error: z
    .object({ time: timestamp, message: z.string() })
    .nullable()
    .describe("Why the server last refused or dropped the device's tunnel"),
  /** The newest first, up to 20. */
  transitions: z.array(z.object({ time: timestamp, online: z.boolean(), cause: z.string() })),
  /** The last 10 refused SSH logins, the newest first, each with the reason the gateway gave itself. */
  refused_logins: z.array(sshLogin.extend({ reason: z.string() })),
  last_login: sshLogin.nullable(),
  plan: z.object({
    /** The device was removed when the namespace went over its plan. */
    removed: z.boolean(),
    /** Why the plan refuses new sessions to the device until the owner chooses devices, or null. */
    refusal: z.string().nullable(),
  }),
});

export type DeviceDiagnostics = z.input<typeof deviceDiagnostics>;
