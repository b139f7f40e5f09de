import { Outcome, PlainPage } from "@/components/plain-page";
import { SetupForm } from "@/components/setup-form";
import { getDb } from "@/lib/db";
import { isSetUp } from "@/lib/services/setup";

export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** First run: the link of the server's start message, `?sign=`, leads here while no account exists. */
export default async function SetupPage({ searchParams }: { searchParams: Search }) {
  const { sign } = await searchParams;
  if (await isSetUp(getDb())) {
    return (
      <PlainPage title="Set up the service">
        <Outcome kind="done">This service is set up already: log in with your account.</Outcome>
      </PlainPage>
    );
  }
  return (
    <PlainPage title="Set up the service">
      <p className="mt-4 text-slate-600 dark:text-slate-300">
        Create the first account and its namespace. Devices join the namespace; more people can register later.
      </p>
      <SetupForm sign={typeof sign === "string" ? sign : undefined} />
    </PlainPage>
  );
}
