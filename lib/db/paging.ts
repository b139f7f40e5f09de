import { count, type SQL, type Subquery } from "drizzle-orm";
import type { PgSelect, PgTable } from "drizzle-orm/pg-core";
import { offsetOf, type Pagination } from "../schemas/common";
import type { Executor } from ".";

/**
 * One page of a list and the total it is a page of: `rows` is the ordered select (made
 * `$dynamic()`), `counted` the table or subquery and condition that the total counts.
 */
export async function readPage<S extends PgSelect>(
  db: Executor,
  counted: { from: PgTable | Subquery; where?: SQL },
  rows: S,
  pagination: Pagination,
): Promise<{ rows: Awaited<S>; total: number }> {
  const [total] = await db.select({ count: count() }).from(counted.from).where(counted.where);
  const page = await rows.limit(pagination.per_page).offset(offsetOf(pagination));
  return { rows: page as Awaited<S>, total: total?.count ?? 0 };
}
