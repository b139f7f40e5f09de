import { z } from "zod";

/** The changes `GET /api/events` announces (docs/live-status.md). */
export const eventTypes = [
  "device.registered",
  "device.online",
  "device.offline",
  "device.status",
  "device.updated",
  "device.removed",
  "session.started",
  "session.ended",
] as const;

/** The JSON of an event's `data:` line in `GET /api/events`; `stats` and `reset` are the stream's own. */
export const liveEventData = z.object({
  type: z.enum([...eventTypes, "stats", "reset"]).describe("Also the event's `event:` field"),
  uid: z.string().describe("The device's or the session's uid; the tenant id for `stats` and `reset`"),
  at: z.string().describe("When it happened (ISO 8601)"),
  patch: z
    .record(z.string(), z.unknown())
    .describe(
      "The changed fields of the device or session as the API shows them; for `stats`, the object of GET /api/stats",
    ),
});
