import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/lib/api";
import { cli, type Data, expectOk } from "@/testing/cli";
import { call } from "@/testing/client";
import { newDataDir } from "@/testing/data-dir";
import { createTestDatabase } from "@/testing/database";
import { enableMfaFor } from "@/testing/mfa";
import { seedUser } from "@/testing/seeds/users";
import { type RunningServer, startServer } from "@/testing/server";

/**
 * EDITION=community hides the cloud-only operations (404) and keeps the rest. A second server
 * runs the community edition on data of its own; the shared test server runs the cloud edition.
 */

const adminUrl = process.env.TEST_DATABASE_URL;

let community: RunningServer;
let data: Data;
let cleanup: () => Promise<unknown> = async () => undefined;

beforeAll(async () => {
  const database = adminUrl ? await createTestDatabase(adminUrl) : undefined;
  data = { DATA_DIR: newDataDir(), DATABASE_URL: database?.url };
  community = await startServer({ EDITION: "community", ...data });
  cleanup = async () => {
    await community.stop();
    await database?.drop();
    rmSync(data.DATA_DIR, { recursive: true, force: true });
  };
});

afterAll(async () => {
  await cleanup();
});

describe("EDITION=community", () => {
  it("answers 404 for announcements, even for one that exists, while the cloud edition answers 200", async () => {
    await expectOk(cli(data, "announcement", "list"), /^no announcements\n$/);
    const file = path.join(data.DATA_DIR, "news.md");
    writeFileSync(file, "Only in the cloud.\n");
    const uuid = (await expectOk(cli(data, "announcement", "create", "Cloud news", file), /^[0-9a-f-]{36}\n$/)).trim();
    await expectOk(cli(data, "announcement", "list"), new RegExp(`^${uuid}  \\S+  Cloud news\\n$`));

    for (const url of [
      "/api/announcements",
      "/api/announcements?order_by=asc",
      "/api/announcements?per_page=1000",
      `/api/announcements/${uuid}`,
      `/api/announcements/${randomUUID()}`,
      "/api/announcements/not-a-uuid",
    ]) {
      const response = await call("GET", url, { baseUrl: community.url });
      expect(response.status, url).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    }

    const cloud = await call("GET", "/api/announcements");
    expect(cloud.status).toBe(200);
    expect(cloud.headers.get("x-total-count")).toMatch(/^\d+$/);
  });

  it("answers 404 for connectors and containers", async () => {
    const uid = randomUUID();
    for (const [method, url] of [
      ["POST", "/api/connector"],
      ["GET", "/api/connector"],
      ["GET", `/api/connector/${uid}`],
      ["PATCH", `/api/connector/${uid}`],
      ["DELETE", `/api/connector/${uid}`],
      ["GET", `/api/connector/${uid}/info`],
      ["GET", "/api/containers"],
    ] as const) {
      const response = await call(method, url, { baseUrl: community.url, body: method === "GET" ? undefined : {} });
      expect(response.status, `${method} ${url}`).toBe(404);
    }
  });

  it("answers 404 for every billing operation, the webhook included", async () => {
    const billing = operations.filter((operation) => operation.path.startsWith("/api/billing/"));
    expect(billing.length).toBeGreaterThan(10);
    for (const operation of billing) {
      const body = operation.method === "POST" ? {} : undefined;
      const response = await call(operation.method, operation.path, { baseUrl: community.url, body });
      expect(response.status, operation.path).toBe(404);
    }
  });

  it("keeps the operations of both editions, such as sessions", async () => {
    const response = await call("GET", "/api/sessions", { baseUrl: community.url });
    expect(response.status).toBe(401);
    expect((await call("GET", "/api/healthcheck", { baseUrl: community.url })).status).toBe(200);
  });
});

describe("MFA in the community edition", () => {
  it("answers 404 for every MFA operation", async () => {
    const uuid = randomUUID();
    for (const [method, url, body] of [
      ["POST", "/api/mfa/auth", { token: uuid, code: "123456" }],
      ["POST", "/api/user/mfa/auth", { token: uuid, code: "123456" }],
      ["POST", "/api/user/mfa/recover", { identifier: "someone", recovery_code: "ABCDEFGHJK" }],
      ["POST", "/api/user/mfa/reset", { identifier: "someone" }],
      ["GET", "/api/user/mfa/generate", undefined],
      ["PUT", "/api/user/mfa/enable", {}],
      ["PUT", "/api/user/mfa/disable", {}],
      ["PUT", `/api/user/mfa/reset/${uuid}`, { main_email_code: "A", recovery_email_code: "B" }],
    ] as const) {
      const response = await call(method, url, { baseUrl: community.url, body });
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String) });
    }
  });
  it("logs in with the password alone a user who turned MFA on in the cloud edition", async () => {
    // The same data, served by the cloud edition for a while.
    await community.stop();
    const cloud = await startServer({ ...data, PORT: String(community.port) });
    let user: Awaited<ReturnType<typeof seedUser>>;
    try {
      user = await seedUser({}, { baseUrl: cloud.url });
      await enableMfaFor(user.token, user.email, cloud.url);
      const challenged = await call("POST", "/api/login", {
        baseUrl: cloud.url,
        body: { username: user.username, password: user.password },
      });
      expect(challenged.status).toBe(401);
      expect(challenged.headers.get("x-mfa-token")).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await cloud.stop();
      community = await startServer({ EDITION: "community", ...data, PORT: String(community.port) });
    }
    const login = await call("POST", "/api/login", {
      baseUrl: community.url,
      body: { username: user.username, password: user.password },
    });
    expect(login.status).toBe(200);
    expect(login.headers.get("x-mfa-token")).toBeNull();
    expect(login.body).toMatchObject({ id: user.id, user: user.username, token: expect.any(String), mfa: false });
  });
});
