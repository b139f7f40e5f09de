import { redirect } from "next/navigation";
import { Logo } from "@/components/console/logo";
import { sessionUser } from "@/lib/console/identity";
import { getDb } from "@/lib/db";
import { isSetUp } from "@/lib/services/setup";

export const dynamic = "force-dynamic";

/** The address people open first: the console, the login page, or on a new service the first steps. */
export default async function HomePage() {
  if (await sessionUser()) redirect("/dashboard");
  if (await isSetUp(getDb())) redirect("/login");
  return (
    <div className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <Logo />
      <main
        id="main-content"
        className="mt-8 w-full max-w-lg rounded-xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8 dark:border-slate-800 dark:bg-slate-900"
      >
        <h1 className="text-xl font-semibold">Welcome: this service has no account yet</h1>
        <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">
          The first account is made on the setup page, whose address the server printed when it started (a line
          &ldquo;no account yet: create the first one on the setup page&rdquo;). To print it again, run this where the
          service runs:
        </p>
        <pre className="mt-3 overflow-x-auto rounded-md bg-slate-900 px-3 py-2 font-mono text-xs text-slate-100 dark:bg-black/50 dark:ring-1 dark:ring-slate-700">
          npm run cli -- setup link
        </pre>
      </main>
    </div>
  );
}
