import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { sessionUser } from "@/lib/console/identity";
import { safeNext } from "@/lib/console/next-path";

export const metadata: Metadata = { title: "Log in" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function LoginPage({ searchParams }: { searchParams: Search }) {
  const query = await searchParams;
  const next = safeNext(query.next);
  if (await sessionUser()) redirect(next);
  const notice = query.expired
    ? "The code step took too long: log in again."
    : query.confirmed
      ? "Your account is confirmed: log in."
      : undefined;
  return (
    <>
      <h1 className="text-xl font-semibold">Log in to your console</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        No account yet?{" "}
        <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/signup">
          Sign up
        </Link>
      </p>
      <LoginForm next={next} notice={notice} />
    </>
  );
}
