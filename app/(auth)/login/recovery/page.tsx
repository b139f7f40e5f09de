import type { Metadata } from "next";
import { RecoveryCodeForm } from "@/components/auth/second-factor-forms";
import { safeNext } from "@/lib/console/next-path";

export const metadata: Metadata = { title: "Recovery code" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function RecoveryPage({ searchParams }: { searchParams: Search }) {
  const next = safeNext((await searchParams).next);
  return (
    <>
      <h1 className="text-xl font-semibold">Use a recovery code</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        After logging in with a recovery code you have 10 minutes to turn MFA off if you lost your device.
      </p>
      <RecoveryCodeForm next={next} />
    </>
  );
}
