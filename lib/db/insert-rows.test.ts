import { asc, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEntries } from "@/models/audit";
import { events } from "@/models/events";
import { withTestDatabase } from "@/testing/database";
import type { Db } from ".";
import { insertRows } from "./insert-rows";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const tenantId = "5f1d7c6e-0000-4000-8000-0000000000aa";

const auditRow = (index: number, at: Date) => ({
  tenantId,
  at,
  actorType: "device",
  actorId: `device-${index}`,
  actorName: `"quoted" 'name' ${index}`,
  source: "",
  action: "device.online",
  targetType: "device",
  targetId: `device-${index}`,
  outcome: "success",
  details: { cause: "tunnel opened", nested: { list: [index, null, "é"] } },
  previousHash: `previous-${index}`,
  hash: `hash-${index}`,
});

describe("insertRows", () => {
  it("writes every column as given, ids rising in the order given, and answers them in that order", async () => {
    const at = new Date("2026-11-28T10:11:12.345Z");
    const rows = Array.from({ length: 30 }, (_, index) => auditRow(index, at));
    const ids = await insertRows(db, auditEntries, rows);
    expect(ids).toHaveLength(30);
    const stored = await db
      .select()
      .from(auditEntries)
      .where(inArray(auditEntries.id, ids))
      .orderBy(asc(auditEntries.id));
    expect(stored.map((row) => row.id)).toEqual(ids);
    expect(stored.map(({ id: _, ...row }) => row)).toEqual(rows);
  });

  it("gives the computed columns their SQL value, per row", async () => {
    const patch = { online: true, last_seen: "2026-11-28T10:00:00.000Z" };
    const ids = await insertRows(
      db,
      events,
      [
        { tenantId, type: "device.online", subject: "a", patch },
        { tenantId, type: "device.offline", subject: "b", patch: {} },
      ],
      {
        at: sql`clock_timestamp()`,
      },
    );
    const stored = await db.select().from(events).where(inArray(events.id, ids)).orderBy(asc(events.id));
    expect(stored.map((row) => [row.subject, row.type, row.patch])).toEqual([
      ["a", "device.online", patch],
      ["b", "device.offline", {}],
    ]);
    const [first, second] = stored;
    expect(first && second && first.at.getTime() <= second.at.getTime()).toBe(true);
  });

  it("writes nothing for no rows, and refuses a key that is no column", async () => {
    expect(await insertRows(db, events, [])).toEqual([]);
    await expect(
      insertRows(db, events, [{ tenantId, type: "x", subject: "y", patch: {}, colour: "red" } as never]),
    ).rejects.toThrow("colour is not a column of the table");
  });
});
