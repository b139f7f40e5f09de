"use client";

import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Button, Callout } from "./controls";

/** Skeleton rows shaped like a table while a list loads. */
export function LoadingRows({ label }: { label: string }) {
  return (
    <div className="grid gap-2" role="status" aria-busy="true">
      <span className="sr-only">{label}</span>
      {[1, 2, 3].map((row) => (
        <div key={row} className="h-12 animate-pulse rounded-md bg-slate-200/70 dark:bg-slate-800" />
      ))}
    </div>
  );
}

/** A list that failed to load: what and why, with Retry. */
export function LoadFailure({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Callout
      kind="error"
      action={
        <Button size="sm" variant="secondary" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {message}
    </Callout>
  );
}

/** Nothing to list yet: an icon, one sentence, and the primary action. */
export function EmptyState({ icon: Icon, title, children }: { icon: LucideIcon; title: string; children?: ReactNode }) {
  return (
    <div className="grid justify-items-center gap-3 rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center dark:border-slate-700">
      <Icon aria-hidden className="size-8 text-slate-500 dark:text-slate-400" />
      <p className="font-medium">{title}</p>
      {children}
    </div>
  );
}
