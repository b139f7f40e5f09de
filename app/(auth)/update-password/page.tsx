import { PasswordResetPage } from "@/components/password-reset-page";

export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** Where the password-recovery mail links to: `?id=&token=`, the route ShellHub's web UI uses. */
export default async function UpdatePasswordPage({ searchParams }: { searchParams: Search }) {
  const { id, token } = await searchParams;
  return <PasswordResetPage uid={id} token={token} />;
}
