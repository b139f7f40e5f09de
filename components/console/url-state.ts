"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";

/**
 * A list page's filters and page, kept in the URL (a link or a reload shows the same view):
 * `parse` reads them, `serialize` writes them. A change of anything but the page starts at page 1.
 */
export function useUrlState<P extends { page: number }>(
  parse: (query: URLSearchParams) => P,
  serialize: (params: P) => string,
): [P, (change: Partial<P>) => void] {
  const query = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = parse(new URLSearchParams(query.toString()));
  const update = (change: Partial<P>) =>
    router.push(`${pathname}${serialize({ ...params, ...change, page: change.page ?? 1 })}`, { scroll: false });
  return [params, update];
}
