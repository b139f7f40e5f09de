import { redirect } from "next/navigation";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** ShellHub's name of the "check your e-mail" page after sign-up. */
export default async function ConfirmAccountPage({ searchParams }: { searchParams: Search }) {
  const { username } = await searchParams;
  redirect(
    typeof username === "string" ? `/signup/check-email?user=${encodeURIComponent(username)}` : "/signup/check-email",
  );
}
