import { z } from "zod";
import { defineOperation } from "../http/operation";

const tag = "service";

export const serverInfo = defineOperation({
  id: "serverInfo",
  method: "GET",
  path: "/info",
  tag,
  summary: "Server version and the API and SSH endpoints",
  access: { kind: "public" },
  response: z.object({ version: z.string(), endpoints: z.object({ api: z.string(), ssh: z.string() }) }),
});

export const healthcheck = defineOperation({
  id: "healthcheck",
  method: "GET",
  path: "/api/healthcheck",
  tag,
  summary: "Liveness and database reachability",
  access: { kind: "public" },
  response: z.object({ status: z.literal("ok") }),
});

export const openApiDocument = defineOperation({
  id: "openApiDocument",
  method: "GET",
  path: "/api/openapi.json",
  tag,
  summary: "This OpenAPI document",
  access: { kind: "public" },
});

export const serviceOperations = [serverInfo, healthcheck, openApiDocument];
