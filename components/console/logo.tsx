import { TerminalSquare } from "lucide-react";

/** The product's mark and name. */
export function Logo({ compact = false }: { compact?: boolean }) {
  return (
    <span className="inline-flex items-center gap-2 font-semibold tracking-tight text-slate-900 dark:text-white">
      <span className="inline-flex size-8 items-center justify-center rounded-lg bg-indigo-600 text-white">
        <TerminalSquare aria-hidden className="size-5" />
      </span>
      {!compact && <span>Device Access</span>}
    </span>
  );
}
