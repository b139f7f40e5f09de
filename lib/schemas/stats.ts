import { z } from "zod";

export const statsObject = z.object({
  registered_devices: z.number().int(),
  online_devices: z.number().int(),
  pending_devices: z.number().int(),
  rejected_devices: z.number().int(),
  active_sessions: z.number().int(),
});
