"use client";

import { Button, Callout } from "@/components/ui/controls";

/** A page of the console that failed to render: the shell stays, with a retry. */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="grid max-w-xl gap-4">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong on this page</h1>
      <Callout
        kind="error"
        action={
          <Button size="sm" variant="secondary" onClick={reset}>
            Retry
          </Button>
        }
      >
        {error.message || "The page could not be shown."}
        {error.digest && (
          <span className="mt-1 block font-mono text-xs">
            Reference: <span className="select-all">{error.digest}</span>
          </span>
        )}
      </Callout>
    </div>
  );
}
