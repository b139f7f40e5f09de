import type { ReactNode } from "react";

/** The frame of the pages reached from a mail or at first run: a title and one narrow column. */
export function PlainPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="text-2xl font-semibold">{title}</h1>
      {children}
    </main>
  );
}

/** A short paragraph that tells how an action ended. */
export function Outcome({ kind, children }: { kind: "done" | "failed" | "pending"; children: ReactNode }) {
  const color = {
    done: "text-green-800 dark:text-green-300",
    failed: "text-red-700 dark:text-red-300",
    pending: "text-slate-600 dark:text-slate-300",
  }[kind];
  return (
    <p className={`mt-6 ${color}`} role={kind === "failed" ? "alert" : "status"}>
      {children}
    </p>
  );
}

export const inputClass =
  "rounded border border-slate-300 bg-white px-3 py-2 text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";
export const buttonClass = "rounded bg-blue-700 px-4 py-2 font-medium text-white disabled:opacity-50";
export const linkClass = "text-blue-700 underline dark:text-blue-300";
