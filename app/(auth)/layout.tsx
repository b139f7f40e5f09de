import type { ReactNode } from "react";
import { Logo } from "@/components/console/logo";

/** The frame of the sign-in pages: the mark above one centred card. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <Logo />
      <main
        id="main-content"
        className="mt-8 w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8 dark:border-slate-800 dark:bg-slate-900"
      >
        {children}
      </main>
    </div>
  );
}
