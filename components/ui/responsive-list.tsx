import type { ReactNode } from "react";

export type Column<T> = {
  header: string;
  cell: (item: T) => ReactNode;
  /** Classes of the column's cells (alignment, wrapping). */
  className?: string;
  /** Actions columns: the header is there for screen readers only. */
  isHeaderHidden?: boolean;
  sort?: "ascending" | "descending";
};

/**
 * A list as a table from `sm` up and as cards below, so that it reads at 375 px. `marker` gives
 * each row and card its `data-*` attributes (what tests and links find it by).
 */
export function ResponsiveList<T>({
  label,
  items,
  keyOf,
  marker,
  columns,
  card,
}: {
  label: string;
  items: T[];
  keyOf: (item: T) => string;
  marker?: (item: T) => Record<`data-${string}`, string>;
  columns: Column<T>[];
  card: (item: T) => ReactNode;
}) {
  return (
    <>
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 bg-white sm:block dark:border-slate-800 dark:bg-slate-900">
        <table className="min-w-full text-sm">
          <caption className="sr-only">{label}</caption>
          <thead className="border-b border-slate-200 bg-slate-50 text-slate-700 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              {columns.map((column) => (
                <th
                  key={column.header}
                  scope="col"
                  aria-sort={column.sort}
                  className={`px-3 py-2.5 font-semibold ${column.isHeaderHidden ? "text-right" : "text-left"}`}
                >
                  {column.isHeaderHidden ? <span className="sr-only">{column.header}</span> : column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {items.map((item) => (
              <tr key={keyOf(item)} {...marker?.(item)}>
                {columns.map((column) => (
                  <td key={column.header} className={`px-3 py-2.5 ${column.className ?? ""}`}>
                    {column.cell(item)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="grid gap-2 sm:hidden" aria-label={label}>
        {items.map((item) => (
          <li
            key={keyOf(item)}
            {...marker?.(item)}
            className="grid gap-2 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
          >
            {card(item)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** What a list shows while it loads: skeleton rows shaped like it, announced once. */
export function LoadingRows({ label, rows = 3, height = "h-12" }: { label: string; rows?: number; height?: string }) {
  return (
    <div className="grid gap-2" role="status" aria-busy="true">
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, row) => `skeleton-${row}`).map((key) => (
        <div key={key} className={`${height} animate-pulse rounded-md bg-slate-200/70 dark:bg-slate-800`} />
      ))}
    </div>
  );
}
