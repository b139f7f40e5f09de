import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type CliResult, cli, type Data, expectError, expectOk } from "@/testing/cli";
import { call, uniqueName } from "@/testing/client";
import { internalHeaders } from "@/testing/internal";

/**
 * Announcements: written with the admin CLI (a real process on the test server's data: through
 * the running server on PGlite, on the database directly on PostgreSQL), read by anyone over HTTP.
 * The test server runs the cloud edition; e2e/api/edition.test.ts covers the community edition.
 */

const data: Data = { DATA_DIR: inject("dataDir"), DATABASE_URL: inject("databaseUrl") || undefined };
const uuid4 = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
const uuidLine = new RegExp(`^${uuid4}\n$`);
const isoDate = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), "das-announcements-"));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

function markdownFile(content: string) {
  const file = path.join(directory, `${uniqueName("a")}.md`);
  writeFileSync(file, content);
  return file;
}

async function create(title: string, content = "Some **news**.\n") {
  const stdout = await expectOk(cli(data, "announcement", "create", title, markdownFile(content)), uuidLine);
  return stdout.trim();
}

/** Quicker than a CLI process each: the same command through the server's admin operation. */
async function createViaServer(title: string) {
  const response = await call("POST", "/internal/admin", {
    headers: await internalHeaders(),
    body: { args: ["announcement", "create", title, "news.md"], input: `# ${title}\n` },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({ code: 0, output: expect.stringMatching(new RegExp(`^${uuid4}$`)) });
}

async function list(query = "per_page=100") {
  const response = await call("GET", `/api/announcements?${query}`);
  expect(response.status, response.text).toBe(200);
  return {
    items: response.body as { title: string; date: string }[],
    total: Number(response.headers.get("x-total-count")),
  };
}

describe("announcements written with the CLI, read over HTTP", () => {
  it("create prints the uuid; get shows the Markdown as written; the list shows title and date", async () => {
    const title = `Maintenance ${uniqueName()}`;
    const content = "# Maintenance\n\nOn **Sunday** from 02:00 UTC: *no* sessions.\n\n- café ✓\n";
    const uuid = await create(title, content);

    const got = await call("GET", `/api/announcements/${uuid}`);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual({ uuid, title, content, date: expect.stringMatching(isoDate) });

    const { items } = await list();
    expect(items).toContainEqual({ title, date: got.body.date });
    for (const item of items) expect(Object.keys(item).sort()).toEqual(["date", "title"]);

    const listed = await expectOk(cli(data, "announcement", "list"), /./);
    expect(listed.split("\n")).toContain(`${uuid}  ${got.body.date}  ${title}`);
  });

  it("delete removes it: get answers 404 and a second delete exits 1", async () => {
    const title = `Gone ${uniqueName()}`;
    const uuid = await create(title);
    await expectOk(cli(data, "announcement", "delete", uuid), new RegExp(`^announcement ${uuid} deleted\\n$`));
    const got = await call("GET", `/api/announcements/${uuid}`);
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ message: "announcement not found" });
    expect((await list()).items.map((item) => item.title)).not.toContain(title);
    await expectError(cli(data, "announcement", "delete", uuid), 1, /^error: announcement not found\n$/);
    const listed = await cli(data, "announcement", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(uuid);
  });

  it("lists newest first by default, oldest first with order_by=asc, paginated with X-Total-Count", async () => {
    const titles = Array.from({ length: 11 }, (_, index) => `Order ${index} ${uniqueName()}`);
    for (const title of titles) await createViaServer(title);
    const mine = (items: { title: string }[]) =>
      items.map((item) => item.title).filter((title) => titles.includes(title));

    const all = await list();
    expect(all.total).toBe(all.items.length);
    expect(mine(all.items)).toEqual([...titles].reverse());
    const dates = all.items.map((item) => item.date);
    expect([...dates].sort().reverse()).toEqual(dates);

    const ascending = await list("per_page=100&order_by=asc");
    expect(ascending.items).toEqual([...all.items].reverse());
    expect(mine((await list("order_by=desc&per_page=100")).items)).toEqual([...titles].reverse());

    const byDefault = await list("");
    expect(byDefault.items).toEqual(all.items.slice(0, 10));
    expect(byDefault.total).toBe(all.total);
    const pages = [];
    for (let page = 1; (page - 1) * 4 < all.total; page++) pages.push(...(await list(`page=${page}&per_page=4`)).items);
    expect(pages).toEqual(all.items);
    expect((await list(`page=${Math.ceil(all.total / 4) + 1}&per_page=4`)).items).toEqual([]);
    expect((await list("page=9007199254740991&per_page=100")).items).toEqual([]);
  });

  it("answers 400 for a uuid that is not one and 404 for an unknown one, with no credentials needed", async () => {
    const bad = await call("GET", "/api/announcements/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: expect.any(String), fields: [{ field: "uuid", message: expect.any(String) }] });
    const unknown = await call("GET", `/api/announcements/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "announcement not found" });
  });
});

describe("announcement CLI refusals", () => {
  it("shows the announcement commands in the usage text", async () => {
    const usage = await cli(data);
    expect(usage.code).toBe(2);
    for (const command of ["announcement create TITLE FILE.md", "announcement list", "announcement delete UUID"]) {
      expect(usage.stderr).toContain(command);
    }
  });

  it("refuses bad commands with a clear message: 1 when refused, 2 for bad usage, creating nothing", async () => {
    const title = `Refused ${uniqueName()}`;
    const good = markdownFile("fine\n");
    const cases: [string[], number, RegExp][] = [
      [["announcement", "create", title], 2, /^wrong number of arguments for 'announcement create'\n\nUsage:/],
      [["announcement", "create", title, good, "extra"], 2, /^wrong number of arguments for 'announcement create'/],
      [
        ["announcement", "create", title, path.join(directory, "missing.md")],
        2,
        /^error: cannot read '.*missing\.md': no such file\n$/,
      ],
      [["announcement", "create", title, directory], 2, /^error: cannot read '.*': .*directory/i],
      [["announcement", "create", "   ", good], 2, /^error: invalid title: must not be empty\n$/],
      [["announcement", "create", "t".repeat(256), good], 2, /^error: invalid title: at most 255 characters\n$/],
      [["announcement", "create", "two\nlines", good], 2, /^error: invalid title: one line, no control characters\n$/],
      [["announcement", "create", title, markdownFile(" \n\n")], 2, /^error: invalid content: must not be empty\n$/],
      [
        ["announcement", "create", title, markdownFile("x".repeat(100_001))],
        2,
        /^error: invalid content: at most 100,000 characters\n$/,
      ],
      [["announcement", "list", "extra"], 2, /^wrong number of arguments for 'announcement list'/],
      [["announcement", "delete"], 2, /^wrong number of arguments for 'announcement delete'/],
      [
        ["announcement", "delete", "not-a-uuid"],
        2,
        /^error: invalid announcement id: expected an announcement id \(uuid\)\n$/,
      ],
      [["announcement", "delete", randomUUID()], 1, /^error: announcement not found\n$/],
    ];
    const results: CliResult[] = [];
    for (let index = 0; index < cases.length; index += 4) {
      results.push(...(await Promise.all(cases.slice(index, index + 4).map(([args]) => cli(data, ...args)))));
    }
    for (const [index, [args, code, message]] of cases.entries()) {
      const result = results[index] as CliResult;
      expect({ args, code: result.code, stdout: result.stdout }, result.stderr).toEqual({ args, code, stdout: "" });
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await list()).items.map((item) => item.title)).not.toContain(title);
  });

  it("the server's admin operation needs the content with the command", async () => {
    const response = await call("POST", "/internal/admin", {
      headers: await internalHeaders(),
      body: { args: ["announcement", "create", "No content", "news.md"] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 2, output: "error: the content of FILE.md is missing" });
    const tooLong = await call("POST", "/internal/admin", {
      headers: await internalHeaders(),
      body: { args: ["announcement", "create", "Too long", "news.md"], input: "x".repeat(200_001) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.fields).toEqual([{ field: "input", message: expect.any(String) }]);
    expect((await list()).items.map((item) => item.title)).not.toContain("No content");
  });
});
