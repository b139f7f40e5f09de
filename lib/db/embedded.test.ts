import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newDataDir } from "@/testing/data-dir";
import { EmbeddedDatabase } from "./embedded";
import { pgliteStartParams } from "./index";
import { isDatabaseUnavailable } from "./unavailable";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the embedded database on its own thread", () => {
  const dataDir = newDataDir();
  let database: EmbeddedDatabase;

  beforeAll(async () => {
    database = await EmbeddedDatabase.open(path.join(dataDir, "pgdata"), pgliteStartParams);
    await database.query("create table numbers (n int primary key)");
  });

  afterAll(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("holds statements from outside back while a transaction is open, and runs them after its commit", async () => {
    let counted: Promise<unknown> | undefined;
    await database.transaction(async (tx) => {
      await tx.query("insert into numbers values (1)");
      counted = database.query("select count(*)::int as n from numbers");
      await pause(50);
      await tx.query("insert into numbers values (2)");
    });
    expect(await counted).toMatchObject({ rows: [{ n: 2 }] });
    await database.query("delete from numbers");
  });

  it("starts waiting transactions one after the other, in the order they came", async () => {
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        database.transaction(async (tx) => {
          await tx.query("insert into numbers values ($1)", [n]);
          await pause(10 * (4 - n));
          order.push(n);
        }),
      ),
    );
    expect(order).toEqual([1, 2, 3]);
    await database.query("delete from numbers");
  });

  it("rolls back a transaction whose work failed, and gives PostgreSQL's code and constraint", async () => {
    const failed = database.transaction(async (tx) => {
      await tx.query("insert into numbers values (7)");
      await tx.query("insert into numbers values (7)");
    });
    await expect(failed).rejects.toMatchObject({ code: "23505", constraint: "numbers_pkey" });
    expect(await database.query("select count(*)::int as n from numbers")).toMatchObject({ rows: [{ n: 0 }] });
  });

  it("keeps the text of the types drizzle's parsers name, and parses the others", async () => {
    const text = "select '2026-01-02 03:04:05+00'::timestamptz as at";
    const kept = await database.query(text, [], { rowMode: "array", parsers: { 1184: (value: string) => value } });
    expect(kept.rows).toEqual([["2026-01-02 03:04:05+00"]]);
    const parsed = await database.query(text);
    expect(parsed.rows).toEqual([{ at: new Date("2026-01-02T03:04:05Z") }]);
  });

  it("runs a statement's text again with new parameters of its types, after a failure, a change of the schema and its rollback", async () => {
    await database.query("create table tagged (n int primary key, tags text[], note text)");
    const text = "insert into tagged values ($1, $2, $3) returning n, tags, note";
    const first = await database.query(text, [1, ["a", "b"], "first"]);
    expect(first.rows).toEqual([{ n: 1, tags: ["a", "b"], note: "first" }]);
    expect((await database.query(text, [2, ["c"], "second"])).rows).toEqual([{ n: 2, tags: ["c"], note: "second" }]);
    await expect(database.query(text, [1, [], ""])).rejects.toMatchObject({ code: "23505" });
    expect((await database.query(text, [3, [], "third"])).rows).toEqual([{ n: 3, tags: [], note: "third" }]);
    // The same text now takes JSON: its parameter's value is written as JSON, not as text.
    await database.query("alter table tagged alter column note type jsonb using to_jsonb(note)");
    expect((await database.query(text, [4, ["d"], { os: "linux" }])).rows).toEqual([
      { n: 4, tags: ["d"], note: { os: "linux" } },
    ]);
    // Back to text within a transaction that rolls back: the column takes JSON again.
    const undone = database.transaction(async (tx) => {
      await tx.query("alter table tagged alter column note type text");
      await tx.query(text, [5, [], "as text"]);
      throw new Error("undo");
    });
    await expect(undone).rejects.toThrow("undo");
    expect((await database.query(text, [6, [], { os: "bsd" }])).rows).toEqual([
      { n: 6, tags: [], note: { os: "bsd" } },
    ]);
    const kept = await database.query("select note from tagged where n = $1", [4], { parsers: { 3802: String } });
    expect(kept.rows).toEqual([{ note: '{"os": "linux"}' }]);
    await database.query("drop table tagged");
  });

  it("runs a named statement with new parameters each time, and goes on after one of its calls failed", async () => {
    const text = "insert into numbers values ($1) returning n, now() as at";
    const first = await database.queryPrepared("insert number", text, [41]);
    expect(first.rows).toEqual([{ n: 41, at: expect.any(Date) }]);
    expect((await database.queryPrepared("insert number", text, [42])).rows).toMatchObject([{ n: 42 }]);
    const duplicate = database.queryPrepared("insert number", text, [41]);
    await expect(duplicate).rejects.toMatchObject({ code: "23505", constraint: "numbers_pkey" });
    expect((await database.queryPrepared("insert number", text, [43])).rows).toMatchObject([{ n: 43 }]);
    const counted = await database.query("select count(*)::int as n from numbers");
    expect(counted.rows).toEqual([{ n: 3 }]);
    await database.query("delete from numbers");
  });

  it("refuses a named statement that does not parse, and prepares it once it does", async () => {
    const broken = database.queryPrepared("count numbers", "select count(*) from numbrs", []);
    await expect(broken).rejects.toMatchObject({ code: "42P01" });
    // A name whose statement never parsed is not taken: a later call prepares it.
    const counted = await database.queryPrepared("count numbers", "select count(*)::int as n from numbers", []);
    expect(counted.rows).toEqual([{ n: 0 }]);
  });

  it("holds a named statement from outside back while a transaction is open", async () => {
    let counted: Promise<unknown> | undefined;
    await database.transaction(async (tx) => {
      await tx.query("insert into numbers values (5)");
      counted = database.queryPrepared("count all", "select count(*)::int as n from numbers", []);
      await pause(50);
      await tx.query("insert into numbers values (6)");
    });
    expect(await counted).toMatchObject({ rows: [{ n: 2 }] });
    await database.query("delete from numbers");
  });

  it("answers every statement after its close as a database that went away", async () => {
    const otherDir = newDataDir();
    const other = await EmbeddedDatabase.open(path.join(otherDir, "pgdata"), pgliteStartParams);
    const answered = other.query("select 1 as one");
    await other.close();
    expect(await answered).toMatchObject({ rows: [{ one: 1 }] });
    const refused = await other.query("select 1").catch((error: Error & { code?: string }) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as { code?: string }).code).toBe("57P02");
    expect(isDatabaseUnavailable(refused)).toBe(true);
    rmSync(otherDir, { recursive: true, force: true });
  });

  it("refuses to open a data directory that is no directory, with PGlite's reason", async () => {
    const otherDir = newDataDir();
    const notADirectory = path.join(otherDir, "a-file");
    writeFileSync(notADirectory, "not a database");
    const failed = await EmbeddedDatabase.open(notADirectory, pgliteStartParams).catch((error: Error) => error);
    expect(failed).toBeInstanceOf(Error);
    // Emscripten's file system throws an object of a name and a number, no Error.
    expect((failed as Error).message).toBe(
      `the embedded database in ${notADirectory} did not open: ErrnoError (errno 54)`,
    );
    rmSync(otherDir, { recursive: true, force: true });
  });
});
