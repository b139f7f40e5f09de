"use client";

import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button, selectStyle } from "./controls";

/** The page sizes every list offers. */
export const pageSizes = [10, 25, 50, 100] as const;

/** "26–50 of 312", the page size, and Previous / Next. */
export function Pagination({
  page,
  perPage,
  total,
  onPage,
  onPerPage,
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
  /** Offers the page sizes when given. */
  onPerPage?: (perPage: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  const last = Math.min(total, page * perPage);
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3 text-sm">
      <p className="text-slate-600 dark:text-slate-400">
        {first.toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}
      </p>
      <div className="flex items-center gap-2">
        {onPerPage && (
          <label className="flex items-center gap-2 text-slate-600 dark:text-slate-400">
            Per page
            <select className={selectStyle} value={perPage} onChange={(event) => onPerPage(Number(event.target.value))}>
              {pageSizes.map((size) => (
                <option key={size}>{size}</option>
              ))}
            </select>
          </label>
        )}
        <Button
          size="sm"
          variant="secondary"
          aria-label="Previous page"
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
        >
          <ChevronLeft aria-hidden className="size-4" />
        </Button>
        <span className="tabular-nums">
          Page {page} of {pages}
        </span>
        <Button
          size="sm"
          variant="secondary"
          aria-label="Next page"
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
        >
          <ChevronRight aria-hidden className="size-4" />
        </Button>
      </div>
    </nav>
  );
}
