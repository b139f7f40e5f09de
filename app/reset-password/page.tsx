import { ResetPasswordForm } from "./reset-password-form";

export const dynamic = "force-dynamic";

type Search = Promise<Record<string, string | string[] | undefined>>;

/** Where the password-recovery mail links to: `?uid=&token=`. */
export default async function ResetPasswordPage({ searchParams }: { searchParams: Search }) {
  const { uid, token } = await searchParams;
  const isComplete = typeof uid === "string" && typeof token === "string";
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="text-2xl font-semibold">Choose a new password</h1>
      {isComplete ? (
        <ResetPasswordForm uid={uid} token={token} />
      ) : (
        <p className="mt-4 text-red-700">This link is incomplete: open the link of the e-mail as it is.</p>
      )}
    </main>
  );
}
