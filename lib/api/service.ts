import { z } from "zod";
import { defineOperation } from "../http/operation";
import { setupBody, setupQuery } from "../schemas/setup";
import { messageReply } from "../schemas/users";

const tag = "service";

export const serverInfo = defineOperation({
  id: "serverInfo",
  method: "GET",
  path: "/info",
  tag,
  summary: "Server version, the API and SSH endpoints, and whether the first account exists",
  access: { kind: "public" },
  response: z.object({
    version: z.string(),
    endpoints: z.object({ api: z.string(), ssh: z.string() }),
    setup: z.boolean(),
    /** Billing (cloud edition): on with a payment processor configured, else off (docs/billing.md). */
    billing: z.boolean(),
  }),
});

export const setup = defineOperation({
  id: "setup",
  method: "POST",
  path: "/api/setup",
  tag,
  summary: "First run: create the first account and its namespace (the sign is in the server's start message)",
  access: { kind: "public" },
  query: setupQuery,
  body: setupBody,
  response: messageReply,
  errors: { 403: "wrong sign", 409: "the service has an account already" },
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

export const serviceOperations = [serverInfo, setup, healthcheck, openApiDocument];
