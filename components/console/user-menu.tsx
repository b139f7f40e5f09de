"use client";

import { useQueryClient } from "@tanstack/react-query";
import { LogOut, Megaphone, Monitor, Moon, Sun, UserRound } from "lucide-react";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Popover } from "@/components/ui/popover";
import { signOutOfConsole } from "@/lib/console/sign-in";
import { useConsole } from "./context";
import { applyTheme, parseTheme, type Theme, themeKey } from "./theme";

const themeChoices: { theme: Theme; label: string; icon: typeof Sun }[] = [
  { theme: "system", label: "System", icon: Monitor },
  { theme: "light", label: "Light", icon: Sun },
  { theme: "dark", label: "Dark", icon: Moon },
];

const menuLinks = [
  { href: "/account", label: "Account", icon: UserRound, isCloudOnly: false },
  { href: "/announcements", label: "Announcements", icon: Megaphone, isCloudOnly: true },
];

/** Who is signed in, the theme, and log out (which also drops every cached answer). */
export function UserMenu() {
  const { user, edition } = useConsole();
  const queryClient = useQueryClient();
  const [theme, setTheme] = useState<Theme>("system");
  useEffect(() => setTheme(parseTheme(localStorage.getItem(themeKey))), []);
  const initials = user.name
    .split(/\s+/)
    .map((part) => part.charAt(0))
    .join("")
    .slice(0, 2)
    .toUpperCase();

  return (
    <Popover
      label="Account menu"
      align="right"
      button={
        <span
          aria-hidden
          className="inline-flex size-8 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-800 dark:bg-indigo-900 dark:text-indigo-100"
        >
          {initials || "?"}
        </span>
      }
    >
      {(close) => (
        <div className="grid gap-1">
          <div className="px-2.5 py-2">
            <p className="truncate text-sm font-semibold">{user.name}</p>
            <p className="truncate text-xs text-slate-600 dark:text-slate-400">{user.email}</p>
          </div>
          <div className="grid border-t border-slate-200 pt-1 dark:border-slate-700">
            {menuLinks
              .filter((link) => !link.isCloudOnly || edition === "cloud")
              .map((link) => (
                <Link
                  key={link.href}
                  href={link.href}
                  onClick={close}
                  className="flex items-center gap-2 rounded-md px-2.5 py-2 text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
                >
                  <link.icon aria-hidden className="size-4" />
                  {link.label}
                </Link>
              ))}
          </div>
          <fieldset className="border-t border-slate-200 px-2.5 py-2 dark:border-slate-700">
            <legend className="sr-only">Theme</legend>
            <p aria-hidden className="mb-1.5 text-xs font-medium text-slate-600 dark:text-slate-400">
              Theme
            </p>
            <div className="grid grid-cols-3 gap-1">
              {themeChoices.map((choice) => (
                <label
                  key={choice.theme}
                  className={`flex cursor-pointer flex-col items-center gap-1 rounded-md border px-2 py-1.5 text-xs has-focus-visible:outline-2 has-focus-visible:outline-indigo-600 ${
                    theme === choice.theme
                      ? "border-indigo-500 bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-100"
                      : "border-slate-200 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
                  }`}
                >
                  <input
                    type="radio"
                    name="theme"
                    className="sr-only"
                    checked={theme === choice.theme}
                    onChange={() => {
                      setTheme(choice.theme);
                      applyTheme(choice.theme);
                    }}
                  />
                  <choice.icon aria-hidden className="size-4" />
                  {choice.label}
                </label>
              ))}
            </div>
          </fieldset>
          <form
            action={async () => {
              queryClient.clear();
              await signOutOfConsole();
            }}
            className="border-t border-slate-200 pt-1 dark:border-slate-700"
          >
            <button
              type="submit"
              className="flex w-full items-center gap-2 rounded-md px-2.5 py-2 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
            >
              <LogOut aria-hidden className="size-4" />
              Log out
            </button>
          </form>
        </div>
      )}
    </Popover>
  );
}
