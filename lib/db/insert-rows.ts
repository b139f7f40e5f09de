import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { type Executor, executePrepared } from "./index";

/** A table whose rows have a bigserial `id`, taken in the order they are inserted. */
type TableWithId = PgTable & { $inferInsert: { id?: number } };

/**
 * Inserts `rows` into `table` in one statement whose only parameter is their JSON, in the order
 * given, and answers their ids in that order. Building the same multi-row insert with drizzle's
 * `values()` costs 125-550 µs a row (docs/performance.md); this costs a JSON.stringify, for
 * the writes made with every event and every audited change. Every row names the same columns;
 * `computed` gives other columns a value computed in SQL, per row (`clock_timestamp()`).
 */
export async function insertRows<T extends TableWithId>(
  db: Executor,
  table: T,
  rows: Partial<T["$inferInsert"]>[],
  computed: Partial<Record<keyof T["$inferInsert"], SQL>> = {},
): Promise<number[]> {
  const [first] = rows;
  if (first === undefined) return [];
  const columns = getTableColumns(table);
  const columnOf = (key: string) => {
    const column = columns[key];
    if (!column) throw new Error(`${key} is not a column of the table`);
    return column;
  };
  const given = Object.keys(first).map((key) => ({ key, column: columnOf(key) }));
  const named = Object.entries(computed as Record<string, SQL>).map(([key, value]) => ({
    column: columnOf(key),
    value,
  }));
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const targets = [...given.map(({ column }) => column.name), ...named.map(({ column }) => column.name)];
  const values = [sql.raw(given.map(({ key }) => `r.${quoted(key)}`).join(", ")), ...named.map(({ value }) => value)];
  const record = given.map(({ key, column }) => `${quoted(key)} ${column.getSQLType()}`).join(", ");
  // ROWS FROM numbers the rows (WITH ORDINALITY), so that the ids follow the order given.
  const inserted = await executePrepared<{ id: string | number | bigint }>(
    db,
    sql`
    insert into ${table} (${sql.raw(targets.map(quoted).join(", "))})
    select ${sql.join(values, sql`, `)}
    from rows from (jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as (${sql.raw(record)})) with ordinality as r
    order by r.ordinality
    returning id`,
  );
  return inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
}
