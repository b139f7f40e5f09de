import { z } from "zod";
import { defineOperation } from "../http/operation";

export const adminCommand = defineOperation({
  id: "adminCommand",
  method: "POST",
  path: "/internal/admin",
  tag: "internal",
  summary: "Run an admin CLI command",
  access: { kind: "internal" },
  body: z.object({
    args: z.array(z.string().max(1000)).max(20),
    /** The content of the command's file argument (announcement create), read by the CLI. */
    input: z.string().max(200_000).optional(),
  }),
  response: z.object({ code: z.number().int(), output: z.string() }),
});

export const internalOperations = [adminCommand];
