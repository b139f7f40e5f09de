import type { Metadata } from "next";
import { MfaCodeForm } from "@/components/auth/second-factor-forms";
import { safeNext } from "@/lib/console/next-path";

export const metadata: Metadata = { title: "Two-factor code" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function MfaPage({ searchParams }: { searchParams: Search }) {
  const next = safeNext((await searchParams).next);
  return (
    <>
      <h1 className="text-xl font-semibold">Two-factor authentication</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        Enter the code your authenticator app shows for this account.
      </p>
      <MfaCodeForm next={next} />
    </>
  );
}
