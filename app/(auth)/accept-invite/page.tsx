import type { Metadata } from "next";
import Link from "next/link";
import { Outcome, PlainPage } from "@/components/plain-page";
import { AcceptInvitation } from "@/components/team/accept-invitation";
import { signOut } from "@/lib/console/auth";
import { sessionUser } from "@/lib/console/identity";
import { getDb } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { invitationQuery, memberParams } from "@/lib/schemas/namespaces";
import { lookupInvitedUser } from "@/lib/services/invitations";

export const metadata: Metadata = { title: "Accept the invitation" };
export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

const linkClass = "font-medium text-indigo-700 hover:underline dark:text-indigo-300";

/** Whether a signed-out visitor's invitation is live, and whether its account can log in yet. */
async function invitationStatus(tenant: string, userId: string, sig: string) {
  try {
    return (await lookupInvitedUser(getDb(), tenant, userId, sig)).status;
  } catch (error) {
    if (error instanceof ApiError) return "invalid";
    throw error;
  }
}

/**
 * Where the invitation mail links to: `?tenant-id=&user-id=&sig=`, ShellHub's route. A signed-out
 * visitor logs in first and comes back here (`?next=`); the invited account then accepts.
 */
export default async function AcceptInvitePage({ searchParams }: { searchParams: Search }) {
  const query = await searchParams;
  const link = memberParams.safeParse({ tenant: query["tenant-id"], uid: query["user-id"] });
  const sig = invitationQuery.safeParse({ sig: query.sig });
  if (!link.success || !sig.success) {
    return (
      <PlainPage title="Accept the invitation">
        <Outcome kind="failed">This link is incomplete: open the link of the e-mail as it is.</Outcome>
      </PlainPage>
    );
  }
  const here = `/accept-invite?${new URLSearchParams({
    "tenant-id": link.data.tenant,
    "user-id": link.data.uid,
    sig: sig.data.sig,
  })}`;
  const loginLink = `/login?next=${encodeURIComponent(here)}`;
  const signedIn = await sessionUser();

  if (!signedIn) {
    const status = await invitationStatus(link.data.tenant, link.data.uid, sig.data.sig);
    return (
      <PlainPage title="You are invited to a namespace">
        {status === "invalid" ? (
          <Outcome kind="failed">
            This invitation is no longer valid: it was used, cancelled, or is older than 7 days. Ask the namespace's
            administrator to add you again.
          </Outcome>
        ) : status === "not-confirmed" ? (
          <>
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
              The invited account is not confirmed yet. Follow the link of the confirmation mail first (
              <Link className={linkClass} href="/signup/check-email">
                ask for a new one
              </Link>
              ), then open this invitation again.
            </p>
            <p className="mt-6">
              <Link className={linkClass} href={loginLink}>
                I have confirmed it: log in to accept
              </Link>
            </p>
          </>
        ) : (
          <>
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
              Log in with the invited account; you come back here to accept.
            </p>
            <p className="mt-6">
              <Link
                className="inline-block rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 dark:bg-indigo-500"
                href={loginLink}
              >
                Log in to accept
              </Link>
            </p>
          </>
        )}
      </PlainPage>
    );
  }

  if (signedIn.user.id !== link.data.uid) {
    async function switchAccount() {
      "use server";
      await signOut({ redirectTo: loginLink });
    }
    return (
      <PlainPage title="This invitation is for another account">
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          You are logged in as <strong>{signedIn.user.user}</strong>. Log out, then log in with the account the
          invitation was mailed to.
        </p>
        <form action={switchAccount} className="mt-6">
          <button
            type="submit"
            className="rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 dark:bg-indigo-500"
          >
            Log out and switch account
          </button>
        </form>
      </PlainPage>
    );
  }

  return (
    <PlainPage title="You are invited to a namespace">
      <AcceptInvitation tenant={link.data.tenant} sig={sig.data.sig} username={signedIn.user.user} />
    </PlainPage>
  );
}
