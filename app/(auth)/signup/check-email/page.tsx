import { MailCheck } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { ResendConfirmation } from "@/components/auth/mail-request-forms";

export const metadata: Metadata = { title: "Check your e-mail" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function CheckEmailPage({ searchParams }: { searchParams: Search }) {
  const { user } = await searchParams;
  return (
    <>
      <MailCheck aria-hidden className="size-8 text-indigo-600 dark:text-indigo-400" />
      <h1 className="mt-3 text-xl font-semibold">Check your e-mail</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        We sent a link to confirm your address. Follow it, then{" "}
        <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/login">
          log in
        </Link>
        . The link works for 24 hours.
      </p>
      <ResendConfirmation user={typeof user === "string" ? user : undefined} />
    </>
  );
}
