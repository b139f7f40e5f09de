import { PasswordResetPage } from "@/components/password-reset-page";

export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** The recovery link of earlier mails, `?uid=&token=`: the same page as /update-password. */
export default async function ResetPasswordPage({ searchParams }: { searchParams: Search }) {
  const { uid, token } = await searchParams;
  return <PasswordResetPage uid={uid} token={token} />;
}
