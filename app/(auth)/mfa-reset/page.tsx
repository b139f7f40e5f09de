import type { Metadata } from "next";
import { MfaResetForm } from "@/components/auth/second-factor-forms";
import { safeNext } from "@/lib/console/next-path";

export const metadata: Metadata = { title: "Turn off two-factor authentication" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function MfaResetPage({ searchParams }: { searchParams: Search }) {
  const next = safeNext((await searchParams).next);
  return (
    <>
      <h1 className="text-xl font-semibold">Turn off two-factor authentication</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        For the login in progress, when both your authenticator app and your recovery codes are lost.
      </p>
      <MfaResetForm next={next} />
    </>
  );
}
