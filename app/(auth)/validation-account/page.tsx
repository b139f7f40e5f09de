import { AccountActivation } from "@/components/account-activation";
import { Outcome, PlainPage } from "@/components/plain-page";

export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** Where the activation mail links to: `?email=&token=`, the route ShellHub's web UI uses. */
export default async function ValidationAccountPage({ searchParams }: { searchParams: Search }) {
  const { email, token } = await searchParams;
  return (
    <PlainPage title="Activate your account">
      {typeof email === "string" && typeof token === "string" ? (
        <AccountActivation email={email} token={token} />
      ) : (
        <Outcome kind="failed">This link is incomplete: open the link of the e-mail as it is.</Outcome>
      )}
    </PlainPage>
  );
}
