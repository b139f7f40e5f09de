import { count, type SQL, type Subquery } from "drizzle-orm";
import type { PgSelect, PgTable } from "drizzle-orm/pg-core";
import { offsetOf, type Pagination } from "../schemas/common";
import type { Executor } from ".";

type Counted = { from: PgTable | Subquery; where?: SQL };

/** How many rows of `counted.from` meet `counted.where`. */
export async function countRows(db: Executor, counted: Counted): Promise<number> {
  const [total] = await db.select({ count: count() }).from(counted.from).where(counted.where);
  return total?.count ?? 0;
}

/**
 * One page of a list and the total it is a page of: `rows` is the ordered select (made
 * `$dynamic()`), `counted` the table or subquery and condition that the total counts.
 */
export async function readPage<S extends PgSelect>(
  db: Executor,
  counted: Counted,
  rows: S,
  pagination: Pagination,
): Promise<{ rows: Awaited<S>; total: number }> {
  const total = await countRows(db, counted);
  const page = await rows.limit(pagination.per_page).offset(offsetOf(pagination));
  return { rows: page as Awaited<S>, total };
}
