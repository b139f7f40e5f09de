import { z } from "zod";
import { defineOperation } from "../http/operation";

export const adminCommand = defineOperation({
  id: "adminCommand",
  method: "POST",
  path: "/internal/admin",
  tag: "internal",
  summary: "Run an admin CLI command",
  access: { kind: "internal" },
  body: z.object({ args: z.array(z.string().max(1000)).max(20) }),
  response: z.object({ code: z.number().int(), output: z.string() }),
});

export const internalOperations = [adminCommand];
