"use client";

import type { ReactNode } from "react";

export type Column<T> = {
  /** The header; `null` for a column of actions, named for screen readers only. */
  header: string | null;
  cell: (item: T) => ReactNode;
  /** Classes of both the header and the cells (hiding a column on narrow screens, alignment). */
  className?: string;
};

/**
 * The same items as a table from `sm` up and as a list of cards below it (a phone, 375 px).
 * `isOrdered` when the order means something (rules in evaluation order).
 */
export function ResponsiveTable<T>({
  label,
  items,
  keyOf,
  columns,
  card,
  rowClassName,
  isOrdered,
}: {
  label: string;
  items: T[];
  keyOf: (item: T) => string;
  columns: Column<T>[];
  card: (item: T) => ReactNode;
  rowClassName?: (item: T) => string;
  isOrdered?: boolean;
}) {
  const List = isOrdered ? "ol" : "ul";
  return (
    <>
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 bg-white sm:block dark:border-slate-800 dark:bg-slate-900">
        <table className="min-w-full text-sm">
          <caption className="sr-only">{label}</caption>
          <thead className="border-b border-slate-200 bg-slate-50 text-left text-slate-700 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              {columns.map((column, index) => (
                <th
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for a table's life
                  key={index}
                  scope="col"
                  className={`px-3 py-2.5 font-semibold ${column.className ?? ""}`}
                >
                  {column.header ?? <span className="sr-only">Actions</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {items.map((item) => (
              <tr key={keyOf(item)} className={rowClassName?.(item)}>
                {columns.map((column, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for a table's life
                  <td key={index} className={`px-3 py-2.5 ${column.className ?? ""}`}>
                    {column.cell(item)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <List className="grid gap-2 sm:hidden" aria-label={label}>
        {items.map((item) => (
          <li
            key={keyOf(item)}
            className="grid gap-1.5 rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900"
          >
            {card(item)}
          </li>
        ))}
      </List>
    </>
  );
}

/** A labelled line of a card: "Users: ^root$". */
export function CardField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <span className="text-slate-600 dark:text-slate-400">{label}:</span>
      {children}
    </div>
  );
}
