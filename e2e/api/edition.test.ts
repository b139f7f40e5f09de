import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type Data, expectOk } from "./support/cli";
import { call } from "./support/client";
import { createTestDatabase } from "./support/database";
import { newDataDir, type RunningServer, startServer } from "./support/server";

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

  it("keeps the operations of both editions, such as sessions", async () => {
    const response = await call("GET", "/api/sessions", { baseUrl: community.url });
    expect(response.status).toBe(401);
    expect((await call("GET", "/api/healthcheck", { baseUrl: community.url })).status).toBe(200);
  });
});
