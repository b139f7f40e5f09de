import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTestDatabase } from "@/testing/database";
import { type Db, inTransaction, isEmbedded } from ".";

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

describe("isEmbedded", () => {
  it("tells the embedded database from a PostgreSQL server, and takes a transaction for a server's", async () => {
    expect(isEmbedded(db)).toBe(!process.env.TEST_DATABASE_URL);
    await db.transaction(async (tx) => {
      expect(isEmbedded(tx)).toBe(false);
    });
  });
});
