"use client";

import Link from "next/link";
import { useActionState, useRef } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { type SignInState, signInWithCode, signInWithRecoveryCode } from "@/lib/console/sign-in";
import { CodeInput } from "./code-input";
import { LockoutCountdown } from "./lockout-countdown";

function Refusal({ state }: { state: SignInState }) {
  if (state.lockedUntil) {
    return (
      <Callout kind="error">
        <LockoutCountdown until={state.lockedUntil} />
      </Callout>
    );
  }
  if (!state.message) return null;
  return <Callout kind="error">{`${state.message.charAt(0).toUpperCase()}${state.message.slice(1)}.`}</Callout>;
}

const linkClass = "font-medium text-indigo-700 hover:underline dark:text-indigo-300";

/** The code of the authenticator app; it submits itself on the sixth digit. */
export function MfaCodeForm({ next }: { next: string }) {
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithCode, {});
  const form = useRef<HTMLFormElement>(null);
  return (
    <form ref={form} action={action} className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      <Refusal state={state} />
      <CodeInput name="code" invalid={Boolean(state.message)} onComplete={() => form.current?.requestSubmit()} />
      <Button type="submit" isPending={isPending}>
        Verify
      </Button>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        No access to the app?{" "}
        <Link className={linkClass} href={`/login/recovery?next=${encodeURIComponent(next)}`}>
          Use a recovery code
        </Link>
      </p>
    </form>
  );
}

/** One of the recovery codes saved when MFA was turned on (10 letters and digits). */
export function RecoveryCodeForm({ next }: { next: string }) {
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithRecoveryCode, {});
  return (
    <form action={action} className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      <Refusal state={state} />
      <TextField
        label="Recovery code"
        name="recovery_code"
        autoComplete="off"
        autoFocus
        required
        spellCheck={false}
        className="font-mono"
        hint="Each recovery code works once. Blanks and letter case do not matter."
      />
      <Button type="submit" isPending={isPending}>
        Log in
      </Button>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        <Link className={linkClass} href={`/login/mfa?next=${encodeURIComponent(next)}`}>
          Use the authenticator app instead
        </Link>
      </p>
    </form>
  );
}
