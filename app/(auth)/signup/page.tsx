import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/auth/signup-form";
import { sessionUser } from "@/lib/console/identity";

export const metadata: Metadata = { title: "Sign up" };

export default async function SignUpPage() {
  if (await sessionUser()) redirect("/dashboard");
  return (
    <>
      <h1 className="text-xl font-semibold">Create your account</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
        Then connect your first device: it takes one command.
      </p>
      <SignUpForm />
    </>
  );
}
