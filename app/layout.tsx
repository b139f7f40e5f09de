import type { Metadata } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { parseTheme, themeKey, themeScript } from "@/components/console/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Console", template: "%s · Console" },
  description: "SSH access to devices behind NAT and firewalls",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A stored "dark" is on the first response already; "system" is settled by the head script.
  const theme = parseTheme((await cookies()).get(themeKey)?.value);
  return (
    <html lang="en" className={theme === "dark" ? "dark" : undefined} suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of ours, before paint */}
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        {children}
      </body>
    </html>
  );
}
