import type { ReactNode } from "react";

/** The content of a page reached from a mail or at first run, inside the sign-in card. */
export function PlainPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <h1 className="text-xl font-semibold">{title}</h1>
      {children}
    </>
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
  "rounded-md bg-white px-3 py-2 text-sm text-slate-900 outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:text-slate-100 dark:outline-slate-600";
export const buttonClass =
  "rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 disabled:opacity-50 dark:bg-indigo-500";
export const linkClass = "font-medium text-indigo-700 hover:underline dark:text-indigo-300";
