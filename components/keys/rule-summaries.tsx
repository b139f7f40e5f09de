import type { z } from "zod";
import { Badge } from "@/components/ui/controls";
import type { deviceFilterObject } from "@/lib/schemas/public-keys";

/** The pattern that matches everything: "any user", "all devices". */
export const matchAll = ".*";

/** A filter in words: "All devices", "Hostname ^web-", or its tags. */
export function FilterSummary({ filter }: { filter: z.infer<typeof deviceFilterObject> }) {
  if ("tags" in filter) {
    if (filter.tags.length === 0) return <span className="text-slate-600 dark:text-slate-400">No device</span>;
    return (
      <span className="flex flex-wrap gap-1">
        {filter.tags.map((tag) => (
          <Badge key={tag} color="indigo">
            {tag}
          </Badge>
        ))}
      </span>
    );
  }
  if (filter.hostname === matchAll) return <span>All devices</span>;
  return (
    <span>
      Hostname <code className="font-mono text-xs [overflow-wrap:anywhere]">{filter.hostname}</code>
    </span>
  );
}

/** A pattern in words: "Any user" (or `anyLabel`) for `.*`, else the pattern itself. */
export function PatternSummary({ pattern, anyLabel = "Any user" }: { pattern: string; anyLabel?: string }) {
  if (pattern === matchAll) return <span>{anyLabel}</span>;
  return <code className="font-mono text-xs [overflow-wrap:anywhere]">{pattern}</code>;
}
