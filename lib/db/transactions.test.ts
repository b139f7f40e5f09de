import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import { type Db, executePrepared, inTransaction, isEmbedded, prepared, writeTogether } from ".";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

describe("inTransaction", () => {
  it("runs in the caller's transaction as it is (no savepoint), and opens one for a database handle", async () => {
    await db.transaction(async (tx) => {
      await inTransaction(tx, async (inner) => {
        expect(inner).toBe(tx);
      });
    });
    await inTransaction(db, async (tx) => {
      expect(tx).not.toBe(db);
    });
  });

  it("rolls the caller's transaction back with the work's failure", async () => {
    await db.execute(sql`create table if not exists in_transaction_probe (n int)`);
    const failing = db.transaction(async (tx) => {
      await inTransaction(tx, async (inner) => {
        await inner.execute(sql`insert into in_transaction_probe values (1)`);
        throw new Error("fails");
      });
    });
    await expect(failing).rejects.toThrow("fails");
    const counted = await db.execute(sql`select count(*)::int as count from in_transaction_probe`);
    const { rows } = counted as unknown as { rows: { count: number }[] };
    expect(rows[0]?.count).toBe(0);
    await db.execute(sql`drop table in_transaction_probe`);
  });
});

describe("writeTogether", () => {
  const count = async () => {
    const counted = await db.execute(sql`select count(*)::int as count from write_together_probe`);
    return (counted as unknown as { rows: { count: number }[] }).rows[0]?.count;
  };

  it("runs every write in the transaction; one failing rolls back all", async () => {
    await db.execute(sql`create table if not exists write_together_probe (n int primary key)`);
    const insert = (tx: Parameters<typeof writeTogether>[0], n: number) => () =>
      tx.execute(sql`insert into write_together_probe values (${n})`);
    await db.transaction((tx) => writeTogether(tx, [insert(tx, 1), insert(tx, 2), insert(tx, 3)]));
    expect(await count()).toBe(3);
    const failing = db.transaction((tx) => writeTogether(tx, [insert(tx, 4), insert(tx, 1), insert(tx, 5)]));
    await expect(failing).rejects.toThrow();
    expect(await count()).toBe(3);
    await db.execute(sql`drop table write_together_probe`);
  });
});

describe("executePrepared", () => {
  it("runs a statement prepared once, in a transaction or not, its rows in a parameter; a rollback undoes its writes, not the statement", async () => {
    await db.execute(sql`create table if not exists prepared_probe (n int)`);
    const insert = (numbers: number[]) =>
      sql`insert into prepared_probe select jsonb_array_elements_text(${JSON.stringify(numbers)}::jsonb)::int returning n`;
    expect(await executePrepared(db, insert([1, 2]))).toEqual([{ n: 1 }, { n: 2 }]);
    const failing = db.transaction(async (tx) => {
      expect(await executePrepared(tx, insert([3]))).toEqual([{ n: 3 }]);
      throw new Error("fails");
    });
    await expect(failing).rejects.toThrow("fails");
    await db.transaction(async (tx) => {
      expect(await executePrepared(tx, insert([4]))).toEqual([{ n: 4 }]);
      // The connection itself keeps the statement (the transaction's, on a server's pool).
      const kept = await tx.execute(
        sql`select count(*)::int as count from pg_prepared_statements where name = ${prepared(insert([4])).name}`,
      );
      expect((kept as unknown as { rows: { count: number }[] }).rows).toEqual([{ count: 1 }]);
    });
    const some = prepared(
      sql`select coalesce(array_agg(n order by n), '{}') as numbers from prepared_probe where n = any(${sql.placeholder("numbers")}::int[])`,
    );
    expect(await executePrepared(db, some, { numbers: [1, 3, 4] })).toEqual([{ numbers: [1, 4] }]);
    expect(await executePrepared(db, some, { numbers: [2] })).toEqual([{ numbers: [2] }]);
    await db.execute(sql`drop table prepared_probe`);
  });
});

describe("isEmbedded", () => {
  it("tells the embedded database and its transactions from a PostgreSQL server and its", async () => {
    const isPglite = !process.env.TEST_DATABASE_URL;
    expect(isEmbedded(db)).toBe(isPglite);
    await db.transaction(async (tx) => {
      expect(isEmbedded(tx)).toBe(isPglite);
    });
  });
});
