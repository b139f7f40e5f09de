"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const tabs = [
  { href: "/team", label: "Members" },
  { href: "/team/api-keys", label: "API keys" },
];

/** The two pages of the team section. */
export function TeamTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Team" className="border-b border-slate-200 dark:border-slate-800">
      <ul className="-mb-px flex gap-4">
        {tabs.map((tab) => {
          const isCurrent = pathname === tab.href;
          return (
            <li key={tab.href}>
              <Link
                href={tab.href}
                aria-current={isCurrent ? "page" : undefined}
                className={`inline-block border-b-2 px-1 pb-2 text-sm font-medium ${
                  isCurrent
                    ? "border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                    : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white"
                }`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
