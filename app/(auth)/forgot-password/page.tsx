import type { Metadata } from "next";
import Link from "next/link";
import { ForgotPasswordForm } from "@/components/auth/mail-request-forms";

export const metadata: Metadata = { title: "Forgot password" };

export default function ForgotPasswordPage() {
  return (
    <>
      <h1 className="text-xl font-semibold">Reset your password</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        We will e-mail you a link to choose a new one.
      </p>
      <ForgotPasswordForm />
      <p className="mt-6 text-sm">
        <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/login">
          Back to log in
        </Link>
      </p>
    </>
  );
}
