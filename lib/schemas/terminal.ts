import { z } from "zod";
import { deviceUid } from "./devices";

/** `POST /ws/ssh`: the device, the local user, and exactly one credential. */
export const terminalTokenBody = z
  .object({
    device: deviceUid,
    username: z.string().min(1, "required").max(255, "at most 255 characters"),
    password: z.string().min(1, "required").max(1024, "at most 1024 characters").optional(),
    private_key: z.string().min(1, "required").max(16384, "at most 16384 characters").optional(),
  })
  .refine((body) => (body.password === undefined) !== (body.private_key === undefined), {
    message: "give either password or private_key",
    path: ["password"],
  });

export const terminalTokenObject = z.object({ token: z.string() });

export const terminalQuery = z.object({
  token: z.string().min(1),
  cols: z.coerce.number().int().min(1).max(1000).default(80),
  rows: z.coerce.number().int().min(1).max(1000).default(24),
});

/** A text message from the browser: the terminal's new size. */
export const terminalResize = z.object({
  type: z.literal("resize"),
  cols: z.number().int().min(1).max(1000),
  rows: z.number().int().min(1).max(1000),
});
