import type { ReactNode } from "react";

/** Label and value pairs, two columns; a missing value reads "—". */
export function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
          <dd className="min-w-0 break-all">{value || "—"}</dd>
        </div>
      ))}
    </dl>
  );
}
