import Link from "next/link";
import { Logo } from "@/components/console/logo";

export default function NotFound() {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center gap-6 px-4 text-center">
      <Logo />
      <main id="main-content" className="grid gap-3">
        <p className="text-sm font-semibold text-indigo-700 dark:text-indigo-300">404</p>
        <h1 className="text-2xl font-semibold tracking-tight">This page does not exist</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The address may be mistyped, or the page has moved.
        </p>
        <nav aria-label="Where to go" className="flex justify-center gap-4 text-sm font-medium">
          <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href="/dashboard">
            Dashboard
          </Link>
          <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href="/devices">
            Devices
          </Link>
        </nav>
      </main>
    </div>
  );
}
