"use client";

import { Menu, WifiOff, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { type ReactNode, Suspense, useEffect, useState } from "react";
import { AnnouncementModal } from "../announcements/announcements";
import { BillingBanner } from "../billing/billing-banner";
import { TerminalsProvider } from "../terminal/terminal-dock";
import { CommandPalette } from "./command-palette";
import { useConnectivity } from "./connectivity";
import { useConsole, usePermission } from "./context";
import { Logo } from "./logo";
import { NamespaceFromLink, NamespaceSwitcher } from "./namespace-switcher";
import { type NavItem, navigation } from "./navigation";
import { NoNamespace } from "./no-namespace";
import { useStats } from "./stats";
import { UserMenu } from "./user-menu";

function NavLink({ item, onNavigate }: { item: NavItem; onNavigate: () => void }) {
  const pathname = usePathname();
  const { allowed } = usePermission(item.needs);
  const { edition } = useConsole();
  const stats = useStats().data?.data;
  if (!allowed || (item.isCloudOnly && edition !== "cloud")) return null;
  // The deepest section that holds the page (Billing, not Settings, on /settings/billing).
  const holds = (href: string) => pathname === href || pathname.startsWith(`${href}/`);
  const isCurrent =
    holds(item.href) && !navigation.some((other) => other.href.length > item.href.length && holds(other.href));
  const count = stats && item.badge ? item.badge.count(stats) : 0;
  const Icon = item.icon;
  return (
    <li>
      <Link
        href={item.href}
        onClick={onNavigate}
        aria-current={isCurrent ? "page" : undefined}
        className={`group flex items-center gap-3 rounded-md px-2.5 py-2 text-sm font-medium ${
          isCurrent
            ? "bg-slate-100 text-indigo-700 dark:bg-slate-800 dark:text-white"
            : "text-slate-700 hover:bg-slate-100 hover:text-slate-950 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
        }`}
      >
        <Icon aria-hidden className="size-5 shrink-0" />
        <span className="flex-1">{item.label}</span>
        {item.badge && count > 0 && (
          <span
            className={`rounded-full px-2 py-0.5 text-xs font-semibold ${
              item.badge.tone === "attention"
                ? "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
                : "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
            }`}
            title={`${count} ${item.badge.noun}`}
          >
            {count.toLocaleString()}
            <span className="sr-only"> {item.badge.noun}</span>
          </span>
        )}
      </Link>
    </li>
  );
}

function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  return (
    <div className="flex h-full flex-col gap-6 px-4 py-5">
      <Link href="/dashboard" onClick={onNavigate} className="px-1">
        <Logo />
      </Link>
      <nav aria-label="Main">
        <ul className="grid gap-1">
          {navigation.map((item) => (
            <NavLink key={item.href} item={item} onNavigate={onNavigate} />
          ))}
        </ul>
      </nav>
    </div>
  );
}

function UnreachableBanner() {
  const { isReachable } = useConnectivity();
  if (isReachable) return null;
  return (
    <div
      role="alert"
      className="flex items-center gap-2 bg-amber-100 px-4 py-2 text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50"
    >
      <WifiOff aria-hidden className="size-4" />
      The service cannot be reached. Reconnecting automatically…
    </div>
  );
}

/** After a login with a recovery code: for 10 minutes that code also turns MFA off (docs/console.md). */
function RecoveryWindowBanner() {
  const { recoveryExpiresAt } = useConsole();
  if (!recoveryExpiresAt || recoveryExpiresAt * 1000 <= Date.now()) return null;
  return (
    <div className="flex flex-wrap items-center gap-2 bg-amber-100 px-4 py-2 text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50">
      You logged in with a recovery code.
      <Link href="/account" className="font-semibold underline">
        Review two-factor authentication
      </Link>
    </div>
  );
}

/** The frame of every console page: sidebar (a drawer on small screens), header, banners. */
export function ConsoleShell({ children }: { children: ReactNode }) {
  const [isDrawerOpen, setDrawerOpen] = useState(false);
  const pathname = usePathname();
  const { isLive } = useConnectivity();
  const { tenant } = useConsole();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation closes the drawer
  useEffect(() => setDrawerOpen(false), [pathname]);

  return (
    <div className="min-h-screen">
      <a
        href="#main-content"
        className="sr-only z-50 rounded-md bg-indigo-600 px-3 py-2 text-white focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to content
      </a>
      <aside className="fixed inset-y-0 left-0 hidden w-60 border-r border-slate-200 bg-white lg:block dark:border-slate-800 dark:bg-slate-900">
        <Sidebar onNavigate={() => {}} />
      </aside>
      {isDrawerOpen && (
        <div className="fixed inset-0 z-40 lg:hidden">
          <button
            type="button"
            aria-label="Close menu"
            className="absolute inset-0 bg-slate-900/50"
            onClick={() => setDrawerOpen(false)}
          />
          <aside className="absolute inset-y-0 left-0 w-64 bg-white shadow-xl dark:bg-slate-900">
            <button
              type="button"
              aria-label="Close menu"
              onClick={() => setDrawerOpen(false)}
              className="absolute top-4 right-3 rounded-md p-1.5 text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
            >
              <X aria-hidden className="size-5" />
            </button>
            <Sidebar onNavigate={() => setDrawerOpen(false)} />
          </aside>
        </div>
      )}
      <div className="lg:pl-60">
        <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-slate-200 bg-white/90 px-4 backdrop-blur sm:px-6 dark:border-slate-800 dark:bg-slate-900/90">
          <button
            type="button"
            aria-label="Open menu"
            onClick={() => setDrawerOpen(true)}
            className="-ml-1 rounded-md p-1.5 text-slate-700 hover:bg-slate-100 lg:hidden dark:text-slate-200 dark:hover:bg-slate-800"
          >
            <Menu aria-hidden className="size-5" />
          </button>
          <NamespaceSwitcher />
          <Suspense>
            <NamespaceFromLink />
          </Suspense>
          <div className="flex-1" />
          <CommandPalette />
          <span
            className="hidden items-center gap-1.5 text-xs text-slate-600 sm:inline-flex dark:text-slate-400"
            title={isLive ? "Changes appear as they happen" : "Updates paused: retrying"}
          >
            <span aria-hidden className={`size-2 rounded-full ${isLive ? "bg-emerald-500" : "bg-slate-400"}`} />
            {isLive ? "Live" : "Updates paused"}
          </span>
          <UserMenu />
        </header>
        <UnreachableBanner />
        <RecoveryWindowBanner />
        {tenant && <BillingBanner />}
        <main id="main-content" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6 outline-none sm:px-6 lg:px-8">
          {tenant ? <TerminalsProvider>{children}</TerminalsProvider> : <NoNamespace />}
        </main>
      </div>
      <AnnouncementModal />
    </div>
  );
}
